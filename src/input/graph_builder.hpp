#pragma once
// Builds hipDNN graph JSON (reference/GRAPH-FORMAT.md) for the converters: tensors with the
// strides of a layout, and nodes with exactly the keys the format names, so that every imported
// graph reads back through graph/reader.hpp unchanged.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor/dtype.hpp"

namespace dnnbench {

// Element strides of `dims` (logical N, C, spatial... order) stored channels-last when
// `channels_last` (NHWC / NDHWC), else packed in the order of the dims.
std::vector<std::int64_t> layout_strides(const std::vector<std::int64_t>& dims, bool channels_last);

struct ConvSettings {
  std::vector<std::int64_t> pre_padding, post_padding, stride, dilation;  // one per spatial dim
  bool cross_correlation = true;
};

struct PoolSettings {
  std::vector<std::int64_t> window, stride, pre_padding, post_padding;
  std::string mode = "MAXPOOL";  // MAXPOOL, AVGPOOL_INCLUDE_PADDING, AVGPOOL_EXCLUDE_PADDING
};

class GraphBuilder {
 public:
  GraphBuilder(std::string name, DataType io_type, DataType compute_type = DataType::f32);

  // Adds a tensor and returns its uid. Empty strides: packed C order.
  std::int64_t tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                      std::vector<std::int64_t> strides = {}, std::optional<DataType> type = std::nullopt,
                      bool is_virtual = false);
  // A by-value fp64 scalar (epsilon, momentum).
  std::int64_t scalar(const std::string& name, double value);
  // An fp32 virtual intermediate with packed strides.
  std::int64_t intermediate(const std::string& name, const std::vector<std::int64_t>& dims);

  // direction: "fwd" (x, w -> y), "bwd_data" (dy, w -> dx), "bwd_weights" (x, dy -> dw); the
  // uids are passed in that order.
  void conv(const std::string& direction, std::int64_t in0, std::int64_t in1, std::int64_t out,
            const ConvSettings& settings, const std::string& node_name = "conv");
  void matmul(std::int64_t a, std::int64_t b, std::int64_t c, const std::string& node_name = "matmul");
  // operation: the file spelling ("add", "relu_fwd", ...); in1 < 0 for unary ops.
  void pointwise(const std::string& operation, std::int64_t in0, std::int64_t in1, std::int64_t out,
                 const std::string& node_name);
  void batchnorm_inference(std::int64_t x, std::int64_t mean, std::int64_t inv_variance, std::int64_t scale,
                           std::int64_t bias, std::int64_t y, const std::string& node_name = "batchnorm");
  // Ports of the training and backward nodes, role -> uid (roles without the _tensor_uid suffix).
  void node(const std::string& type, const std::string& node_name,
            const std::vector<std::pair<std::string, std::int64_t>>& inputs,
            const std::vector<std::pair<std::string, std::int64_t>>& outputs,
            nlohmann::json attributes = nlohmann::json::object());
  void layernorm(std::int64_t x, std::int64_t scale, std::int64_t bias, std::int64_t epsilon, std::int64_t y,
                 std::int64_t mean, std::int64_t inv_variance, bool training, const std::string& node_name);
  void pool(std::int64_t x, std::int64_t y, const PoolSettings& settings,
            const std::string& node_name = "pool");
  void sdpa(std::int64_t q, std::int64_t k, std::int64_t v, std::int64_t o, double scale, bool causal,
            const std::string& node_name = "sdpa");

  const nlohmann::json& tensor_json(std::int64_t uid) const;
  nlohmann::json take();

 private:
  nlohmann::json graph_;
  std::int64_t next_uid_ = 1;
  DataType compute_type_;
};

// Output size of a convolution or pooling window along one dim (the formula validation checks).
std::int64_t window_output_size(std::int64_t in, std::int64_t pre, std::int64_t post, std::int64_t kernel,
                                std::int64_t stride, std::int64_t dilation = 1);

}  // namespace dnnbench
