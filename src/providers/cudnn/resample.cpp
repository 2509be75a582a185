// Resample forward (pooling): one RESAMPLE_DESCRIPTOR + OPERATION_RESAMPLE_FWD. Window, strides
// and paddings are fractions (n/1); x and y keep their own N, C, (D,) H, W dims and strides, since
// a pooling window, unlike an elementwise op, tells the dims apart.
#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

namespace {

cudnnResampleMode_t resample_mode(ResampleMode mode) {
  switch (mode) {
    case ResampleMode::maxpool:
      return CUDNN_RESAMPLE_MAXPOOL;
    case ResampleMode::avgpool_include_padding:
      return CUDNN_RESAMPLE_AVGPOOL_INCLUDE_PADDING;
    case ResampleMode::avgpool_exclude_padding:
      break;
  }
  return CUDNN_RESAMPLE_AVGPOOL_EXCLUDE_PADDING;
}

std::vector<cudnnFraction_t> fractions(const std::vector<std::int64_t>& values) {
  std::vector<cudnnFraction_t> out;
  for (const std::int64_t v : values) out.push_back({v, 1});
  return out;
}

}  // namespace

void lower_resample(Lowering& low, const Node& node) {
  const auto& p = node.as<ResampleParams>();
  const std::int64_t x = input_uid(node, "x"), y = output_uid(node, "y");
  const auto rank = low.graph().tensor(x).dims.size();
  const auto spatial = static_cast<std::int64_t>(rank) - 2;
  if (spatial < 1 || static_cast<std::size_t>(spatial) != p.window.size())
    throw Unsupported("cuDNN's resample wants x as [N, C, spatial...] with one window size per spatial dim");
  // The graph may leave a setting out (0 padding, stride = window); the reference reads it so.
  auto spatial_or = [&](const std::vector<std::int64_t>& v, const std::vector<std::int64_t>& fallback) {
    return v.size() == p.window.size() ? v : fallback;
  };
  const std::vector<std::int64_t> zeros(p.window.size(), 0);

  Descriptor rs(CUDNN_BACKEND_RESAMPLE_DESCRIPTOR);
  set(rs, CUDNN_ATTR_RESAMPLE_MODE, resample_mode(p.mode));
  set(rs, CUDNN_ATTR_RESAMPLE_COMP_TYPE, low.compute_type(node));
  // Max pooling: padding never wins (the reference's rule); average pooling counts padding as 0.
  set(rs, CUDNN_ATTR_RESAMPLE_PADDING_MODE,
      p.mode == ResampleMode::maxpool ? CUDNN_NEG_INF_PAD : CUDNN_ZERO_PAD);
  set(rs, CUDNN_ATTR_RESAMPLE_SPATIAL_DIMS, spatial);
  set(rs, CUDNN_ATTR_RESAMPLE_WINDOW_DIMS, fractions(p.window));
  set(rs, CUDNN_ATTR_RESAMPLE_STRIDES, fractions(spatial_or(p.stride, p.window)));
  set(rs, CUDNN_ATTR_RESAMPLE_PRE_PADDINGS, fractions(spatial_or(p.pre_padding, zeros)));
  set(rs, CUDNN_ATTR_RESAMPLE_POST_PADDINGS, fractions(spatial_or(p.post_padding, zeros)));
  rs.finalize("resample descriptor of node '" + node.name + "'");
  const Descriptor& kept = low.keep(std::move(rs));

  Descriptor op(CUDNN_BACKEND_OPERATION_RESAMPLE_FWD_DESCRIPTOR);
  set(op, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_XDESC, low.tensor(x));
  set(op, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_YDESC, low.tensor(y));
  set(op, CUDNN_ATTR_OPERATION_RESAMPLE_FWD_DESC, kept);
  op.finalize("resample operation of node '" + node.name + "'");
  low.add_op(std::move(op), "resample_" + std::string(resample_mode_name(p.mode)));
}

}  // namespace dnnbench::cudnn
