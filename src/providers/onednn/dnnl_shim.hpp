#pragma once
// The version-specific corner of the oneDNN provider (oneDNN 2.x C++ API): the engine,
// data-type mapping, user memory descriptors and printable layouts. 3.x differences belong here.
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench::onednn {

// The CPU engine, created on first use (the provider's only shared state).
const dnnl::engine& cpu_engine();

// "oneDNN 2.6.3 (OpenMP, git <hash>)".
std::string library_version();

// oneDNN's type for a graph type; throws Unsupported for types oneDNN 2.x lacks (fp64, fp8, ...).
dnnl::memory::data_type to_dnnl(DataType type);

// The tensor as the user stores it: its dims, type and element strides.
dnnl::memory::desc user_md(const TensorDesc& tensor);
// The same storage seen with other dims and strides (a collapsed or reshaped view).
dnnl::memory::desc strided_md(const std::vector<std::int64_t>& dims, DataType type,
                              const std::vector<std::int64_t>& strides);
// A layout left for the implementation to choose.
dnnl::memory::desc any_md(const std::vector<std::int64_t>& dims, DataType type);

// Printable layout in oneDNN's tag spelling ("abcd", "acdb", "aBcd8b"); "any" or "opaque"
// for non-blocked descriptors.
std::string layout_name(const dnnl::memory::desc& md);
// Element strides of a plain (unblocked) descriptor; throws when the descriptor is blocked.
std::vector<std::int64_t> plain_strides(const dnnl::memory::desc& md);

// Prepends 1s to dims (and matching outer strides) up to `rank`.
void pad_to_rank(std::vector<std::int64_t>& dims, std::vector<std::int64_t>& strides, std::size_t rank);

}  // namespace dnnbench::onednn
