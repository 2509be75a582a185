#pragma once
// Helpers for the graph room's tests: expecting InputErrors with a JSON path and a message
// substring, and a small valid graph in JSON form to mutate.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "graph/errors.hpp"
#include "graph/graph.hpp"

// Runs `statement`, expects an InputError at `path` whose message contains `substring`.
#define EXPECT_INPUT_ERROR(statement, path, substring)                                         \
  do {                                                                                         \
    try {                                                                                      \
      statement;                                                                               \
      ADD_FAILURE() << "expected an InputError at " << (path);                                 \
    } catch (const ::dnnbench::InputError& e) {                                                \
      EXPECT_EQ(e.json_path(), std::string(path)) << e.what();                                 \
      EXPECT_NE(e.message().find(substring), std::string::npos) << "message: " << e.message(); \
    }                                                                                          \
  } while (0)

namespace dnnbench::testing {

inline PointwiseParams pointwise_params(PointwiseOp op) {
  PointwiseParams p;
  p.op = op;
  return p;
}

// The conv example of reference/GRAPH-FORMAT.md (8x64x28x28 NHWC half, 3x3 pad 1).
inline nlohmann::json example_conv_json() {
  return nlohmann::json::parse(R"({
    "name": "conv_3x3_nhwc", "io_data_type": "half", "compute_data_type": "float",
    "intermediate_data_type": "float",
    "tensors": [
      {"uid": 1, "name": "x", "dims": [8, 64, 28, 28], "strides": [50176, 1, 1792, 64], "data_type": "half", "virtual": false},
      {"uid": 2, "name": "w", "dims": [128, 64, 3, 3], "strides": [576, 1, 192, 64], "data_type": "half", "virtual": false},
      {"uid": 3, "name": "y", "dims": [8, 128, 28, 28], "strides": [100352, 1, 3584, 128], "data_type": "half", "virtual": false}],
    "nodes": [
      {"name": "conv", "type": "ConvolutionFwdAttributes", "compute_data_type": "float",
       "inputs": {"x_tensor_uid": 1, "w_tensor_uid": 2}, "outputs": {"y_tensor_uid": 3},
       "parameters": {"conv_mode": "CROSS_CORRELATION", "pre_padding": [1, 1], "post_padding": [1, 1],
                      "stride": [1, 1], "dilation": [1, 1]}}]})");
}

}  // namespace dnnbench::testing
