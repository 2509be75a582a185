#include "providers/onednn/dnnl_shim.hpp"

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "providers/provider.hpp"

namespace dnnbench::onednn {

const dnnl::engine& cpu_engine() {
  // Function-local static: created lazily on the first graph, lives for the process.
  static const dnnl::engine engine = [] {
    // oneDNN 2.6's primitive-descriptor iterator consults the primitive cache at each
    // next_impl() without advancing its own position on a hit, so once earlier graphs have
    // built primitives for the same operation (graphs that differ only in user layouts lower to
    // the same `any` descriptor) it yields implementations twice: a graph's engine list would
    // depend on what ran before it in the process. Off, enumeration depends on the graph alone,
    // and every build is a real creation (honest build times). Overrides
    // ONEDNN_PRIMITIVE_CACHE_CAPACITY.
    dnnl::set_primitive_cache_capacity(0);
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

std::string library_version() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " (" + dnnl_runtime2str(v->cpu_runtime) + ", git " + v->hash + ")";
}

dnnl::memory::data_type to_dnnl(DataType type) {
  using dt = dnnl::memory::data_type;
  switch (type) {
    case DataType::f32:
      return dt::f32;
    case DataType::f16:
      return dt::f16;
    case DataType::bf16:
      return dt::bf16;
    case DataType::i8:
      return dt::s8;
    case DataType::u8:
      return dt::u8;
    case DataType::i32:
      return dt::s32;
    default:
      break;
  }
  throw Unsupported("oneDNN 2.x has no data type '" + std::string(dtype_name(type)) + "'");
}

dnnl::memory::desc strided_md(const std::vector<std::int64_t>& dims, DataType type,
                              const std::vector<std::int64_t>& strides) {
  if (dims.empty() || dims.size() > DNNL_MAX_NDIMS)
    throw Unsupported("oneDNN takes tensors of rank 1.." + std::to_string(DNNL_MAX_NDIMS) + ", not " +
                      std::to_string(dims.size()));
  if (std::any_of(strides.begin(), strides.end(), [](std::int64_t s) { return s < 0; }))
    throw Unsupported("oneDNN takes no negative strides");
  try {
    return dnnl::memory::desc(dims, to_dnnl(type), strides);
  } catch (const dnnl::error& e) {
    throw Unsupported(std::string("oneDNN refuses the tensor's strides: ") + e.what());
  }
}

dnnl::memory::desc user_md(const TensorDesc& tensor) {
  return strided_md(tensor.dims, tensor.dtype, tensor.strides);
}

dnnl::memory::desc any_md(const std::vector<std::int64_t>& dims, DataType type) {
  return dnnl::memory::desc(dims, to_dnnl(type), dnnl::memory::format_tag::any);
}

std::string layout_name(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& c = md.data;
  if (c.format_kind == dnnl_format_kind_any) return "any";
  if (c.format_kind != dnnl_blocked) return "opaque";
  const auto& blk = c.format_desc.blocking;
  // Outer dims ordered outermost first: descending stride, ties by dim index.
  std::vector<int> order(static_cast<std::size_t>(c.ndims));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return blk.strides[a] > blk.strides[b]; });
  std::string text;
  for (int d : order) {
    bool blocked = false;
    for (int k = 0; k < blk.inner_nblks; ++k) blocked = blocked || blk.inner_idxs[k] == d;
    text += static_cast<char>((blocked ? 'A' : 'a') + d);
  }
  for (int k = 0; k < blk.inner_nblks; ++k)
    text += std::to_string(blk.inner_blks[k]) + static_cast<char>('a' + blk.inner_idxs[k]);
  return text;
}

std::vector<std::int64_t> plain_strides(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& c = md.data;
  if (c.format_kind != dnnl_blocked || c.format_desc.blocking.inner_nblks != 0)
    throw std::logic_error("oneDNN provider: expected a plain layout, got " + layout_name(md));
  return std::vector<std::int64_t>(c.format_desc.blocking.strides, c.format_desc.blocking.strides + c.ndims);
}

void pad_to_rank(std::vector<std::int64_t>& dims, std::vector<std::int64_t>& strides, std::size_t rank) {
  while (dims.size() < rank) {
    // A leading 1 gets the stride of the whole tensor, as a dense layout would give it.
    std::int64_t outer = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) outer = std::max(outer, dims[k] * strides[k]);
    dims.insert(dims.begin(), 1);
    strides.insert(strides.begin(), outer);
  }
}

}  // namespace dnnbench::onednn
