#pragma once
// The magnitude reference: the graph run on the absolute values of its inputs. For a graph of
// contractions (convolutions, matmuls) and sign-preserving pointwise steps (add, mul, relu,
// identity) every output element is then Σ|a_i·b_i| over the terms that made it: the scale of
// the rounding error a correct library may make at that element, however much the terms
// cancel (tensor/compare.hpp's componentwise_tolerance).
#include "graph/graph.hpp"
#include "reference/reference.hpp"

namespace dnnbench {

// True when the graph has a contraction and every node is one of the ops above: only then is
// the magnitude reference a bound on what its terms could have summed to.
bool magnitude_reference_applies(const Graph& graph);

// `values` (inputs, as for run_reference) with every element replaced by its absolute value.
void take_absolute_values(Values& values);

}  // namespace dnnbench
