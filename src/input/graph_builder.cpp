#include "input/graph_builder.hpp"

#include <numeric>

#include "tensor/dense.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

// The inline settings every pointwise node of the format's samples carries, null when unused.
json pointwise_inputs(const std::string& operation, std::int64_t in0, std::int64_t in1) {
  return json{{"operation", operation},
              {"relu_lower_clip", nullptr},
              {"relu_upper_clip", nullptr},
              {"relu_lower_clip_slope", nullptr},
              {"axis_tensor_uid", nullptr},
              {"in_0_tensor_uid", in0},
              {"in_1_tensor_uid", in1 < 0 ? json(nullptr) : json(in1)},
              {"in_2_tensor_uid", nullptr},
              {"swish_beta", nullptr},
              {"elu_alpha", nullptr},
              {"softplus_beta", nullptr}};
}

json ports(const std::vector<std::pair<std::string, std::int64_t>>& roles) {
  json object = json::object();
  for (const auto& [role, uid] : roles) object[role + "_tensor_uid"] = uid;
  return object;
}

}  // namespace

std::vector<std::int64_t> layout_strides(const std::vector<std::int64_t>& dims, bool channels_last) {
  if (!channels_last || dims.size() < 3) return c_order_strides(dims);
  // Storage order N, spatial..., C: C is fastest, then the last spatial dim, and so on.
  std::vector<std::int64_t> strides(dims.size());
  std::int64_t step = 1;
  strides[1] = step;
  step *= dims[1];
  for (std::size_t d = dims.size() - 1; d >= 2; --d) {
    strides[d] = step;
    step *= dims[d];
  }
  strides[0] = step;
  return strides;
}

std::int64_t window_output_size(std::int64_t in, std::int64_t pre, std::int64_t post, std::int64_t kernel,
                                std::int64_t stride, std::int64_t dilation) {
  const std::int64_t extent = dilation * (kernel - 1) + 1;
  const std::int64_t padded = in + pre + post;
  if (stride <= 0 || padded < extent) return 0;
  return (padded - extent) / stride + 1;
}

GraphBuilder::GraphBuilder(std::string name, DataType io_type, DataType compute_type)
    : compute_type_(compute_type) {
  graph_ = json{{"name", std::move(name)},
                {"io_data_type", dtype_name(io_type)},
                {"compute_data_type", dtype_name(compute_type)},
                {"intermediate_data_type", dtype_name(DataType::f32)},
                {"tensors", json::array()},
                {"nodes", json::array()}};
}

std::int64_t GraphBuilder::tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                                  std::vector<std::int64_t> strides, std::optional<DataType> type,
                                  bool is_virtual) {
  const std::int64_t uid = next_uid_++;
  if (strides.empty()) strides = c_order_strides(dims);
  const std::string dtype = type ? std::string(dtype_name(*type)) : graph_["io_data_type"].get<std::string>();
  graph_["tensors"].push_back(json{{"uid", uid},
                                   {"name", name},
                                   {"dims", dims},
                                   {"strides", strides},
                                   {"data_type", dtype},
                                   {"virtual", is_virtual}});
  return uid;
}

std::int64_t GraphBuilder::scalar(const std::string& name, double value) {
  const std::int64_t uid = next_uid_++;
  graph_["tensors"].push_back(json{{"uid", uid},
                                   {"name", name},
                                   {"dims", {1}},
                                   {"strides", {1}},
                                   {"data_type", "double"},
                                   {"virtual", false},
                                   {"value_type", "Float64Value"},
                                   {"value", value}});
  return uid;
}

std::int64_t GraphBuilder::intermediate(const std::string& name, const std::vector<std::int64_t>& dims) {
  return tensor(name, dims, {}, DataType::f32, true);
}

void GraphBuilder::conv(const std::string& direction, std::int64_t in0, std::int64_t in1, std::int64_t out,
                        const ConvSettings& s, const std::string& node_name) {
  std::string type = "ConvolutionFwdAttributes";
  std::vector<std::pair<std::string, std::int64_t>> inputs{{"x", in0}, {"w", in1}}, outputs{{"y", out}};
  if (direction == "bwd_data") {
    type = "ConvolutionBwdAttributes";
    inputs = {{"dy", in0}, {"w", in1}};
    outputs = {{"dx", out}};
  } else if (direction == "bwd_weights") {
    type = "ConvolutionWrwAttributes";
    inputs = {{"x", in0}, {"dy", in1}};
    outputs = {{"dw", out}};
  }
  graph_["nodes"].push_back(json{{"name", node_name},
                                 {"type", type},
                                 {"compute_data_type", dtype_name(compute_type_)},
                                 {"inputs", ports(inputs)},
                                 {"outputs", ports(outputs)},
                                 {"parameters",
                                  {{"conv_mode", s.cross_correlation ? "CROSS_CORRELATION" : "CONVOLUTION"},
                                   {"pre_padding", s.pre_padding},
                                   {"post_padding", s.post_padding},
                                   {"stride", s.stride},
                                   {"dilation", s.dilation}}}});
}

void GraphBuilder::matmul(std::int64_t a, std::int64_t b, std::int64_t c, const std::string& node_name) {
  graph_["nodes"].push_back(json{{"name", node_name},
                                 {"type", "MatmulAttributes"},
                                 {"compute_data_type", dtype_name(compute_type_)},
                                 {"inputs", ports({{"a", a}, {"b", b}})},
                                 {"outputs", ports({{"c", c}})}});
}

void GraphBuilder::pointwise(const std::string& operation, std::int64_t in0, std::int64_t in1,
                             std::int64_t out, const std::string& node_name) {
  graph_["nodes"].push_back(json{{"name", node_name},
                                 {"type", "PointwiseAttributes"},
                                 {"compute_data_type", dtype_name(compute_type_)},
                                 {"inputs", pointwise_inputs(operation, in0, in1)},
                                 {"outputs", ports({{"out_0", out}})}});
}

void GraphBuilder::batchnorm_inference(std::int64_t x, std::int64_t mean, std::int64_t inv_variance,
                                       std::int64_t scale, std::int64_t bias, std::int64_t y,
                                       const std::string& node_name) {
  node("BatchnormInferenceAttributes", node_name,
       {{"x", x}, {"mean", mean}, {"inv_variance", inv_variance}, {"scale", scale}, {"bias", bias}},
       {{"y", y}});
}

void GraphBuilder::node(const std::string& type, const std::string& node_name,
                        const std::vector<std::pair<std::string, std::int64_t>>& inputs,
                        const std::vector<std::pair<std::string, std::int64_t>>& outputs, json attributes) {
  graph_["nodes"].push_back(json{{"name", node_name},
                                 {"type", type},
                                 {"compute_data_type", dtype_name(compute_type_)},
                                 {"inputs", ports(inputs)},
                                 {"outputs", ports(outputs)},
                                 {"attributes", std::move(attributes)}});
}

void GraphBuilder::layernorm(std::int64_t x, std::int64_t scale, std::int64_t bias, std::int64_t epsilon,
                             std::int64_t y, std::int64_t mean, std::int64_t inv_variance, bool training,
                             const std::string& node_name) {
  std::vector<std::pair<std::string, std::int64_t>> outputs{{"y", y}};
  if (training) {
    outputs.emplace_back("mean", mean);
    outputs.emplace_back("inv_variance", inv_variance);
  }
  node("LayernormAttributes", node_name, {{"x", x}, {"scale", scale}, {"bias", bias}, {"epsilon", epsilon}},
       outputs, json{{"normalized_dim_count", 1}, {"forward_phase", training ? "TRAINING" : "INFERENCE"}});
}

void GraphBuilder::pool(std::int64_t x, std::int64_t y, const PoolSettings& s, const std::string& node_name) {
  node("ResampleFwdAttributes", node_name, {{"x", x}}, {{"y", y}},
       json{{"window", s.window},
            {"stride", s.stride},
            {"pre_padding", s.pre_padding},
            {"post_padding", s.post_padding},
            {"resample_mode", s.mode},
            {"padding_mode", "ZERO_PAD"}});
}

void GraphBuilder::sdpa(std::int64_t q, std::int64_t k, std::int64_t v, std::int64_t o, double scale,
                        bool causal, const std::string& node_name) {
  node("SdpaAttributes", node_name, {{"q", q}, {"k", k}, {"v", v}}, {{"o", o}},
       json{{"causal_mask", causal}, {"attn_scale_value", scale}, {"generate_stats", false}});
}

const json& GraphBuilder::tensor_json(std::int64_t uid) const {
  for (const auto& t : graph_["tensors"])
    if (t["uid"].get<std::int64_t>() == uid) return t;
  throw std::out_of_range("no tensor " + std::to_string(uid));
}

json GraphBuilder::take() {
  return std::move(graph_);
}

}  // namespace dnnbench
