// Reduction: out has in's dims with 1 on every reduced axis (lower-rank outputs align from the
// right, their missing leading axes reduced). Each output element folds its group in C order,
// so the result does not depend on the thread count.
#include <cmath>
#include <limits>
#include <string>

#include "reference/broadcast.hpp"
#include "reference/node_io.hpp"
#include "reference/reference.hpp"
#include "tensor/parallel.hpp"

namespace dnnbench {
namespace {

double fold(ReductionMode mode, const double* base, const std::vector<std::int64_t>& offsets) {
  switch (mode) {
    case ReductionMode::add:
    case ReductionMode::avg: {
      double sum = 0;
      for (auto at : offsets) sum += base[at];
      return mode == ReductionMode::avg ? sum / static_cast<double>(offsets.size()) : sum;
    }
    case ReductionMode::mul: {
      double prod = 1;
      for (auto at : offsets) prod *= base[at];
      return prod;
    }
    case ReductionMode::mul_no_zeros: {
      double prod = 1;
      for (auto at : offsets)
        if (base[at] != 0) prod *= base[at];
      return prod;
    }
    case ReductionMode::min: {
      double m = std::numeric_limits<double>::infinity();
      for (auto at : offsets) m = std::fmin(m, base[at]);
      return m;
    }
    case ReductionMode::max: {
      double m = -std::numeric_limits<double>::infinity();
      for (auto at : offsets) m = std::fmax(m, base[at]);
      return m;
    }
    case ReductionMode::amax: {
      double m = 0;
      for (auto at : offsets) m = std::fmax(m, std::abs(base[at]));
      return m;
    }
    case ReductionMode::norm1: {
      double sum = 0;
      for (auto at : offsets) sum += std::abs(base[at]);
      return sum;
    }
    case ReductionMode::norm2: {
      double sum = 0;
      for (auto at : offsets) sum += base[at] * base[at];
      return std::sqrt(sum);
    }
  }
  return 0;
}

}  // namespace

void reference_reduction(const Graph& graph, const Node& node, Values& values) {
  const auto mode = ref::params<ReductionParams>(node).mode;
  const Dense& in = ref::input(graph, node, values, "in");
  Dense& out = ref::output(graph, node, values, "out");
  if (!ref::broadcastable(out.dims, in.dims))
    ref::fail(node, "out dims must equal in dims or be 1 on reduced axes");
  std::vector<bool> reduced(in.dims.size());
  const std::size_t lead = in.dims.size() - out.dims.size();
  for (std::size_t k = 0; k < in.dims.size(); ++k)
    reduced[k] = k < lead || (out.dims[k - lead] == 1 && in.dims[k] != 1);
  const ref::AxisSplit split(in.dims, reduced);
  parallel_for(split.outer_count(), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t o = begin; o < end; ++o)
      out.data[static_cast<std::size_t>(o)] =
          fold(mode, in.data.data() + split.outer_offset(o), split.inner_offsets());
  });
}

}  // namespace dnnbench
