#pragma once
// Small ONNX models for the importer's tests, written with ONNX's protobuf API (libonnx-dev):
// a CNN with every layer kind, a transformer block and an Attention op. Weights are zeros (the
// importer never reads them). Built only where libonnx is.
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

namespace dnnbench::testing {

// A dim: a size, or a symbol (dim_param).
using OnnxDim = std::variant<std::int64_t, std::string>;

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(const std::string& name, int opset = 17) {
    model_.set_ir_version(8);
    model_.set_producer_name("dnnbench-tests");
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name(name);
  }

  void input(const std::string& name, const std::vector<OnnxDim>& dims,
             int type = onnx::TensorProto_DataType_FLOAT) {
    auto* v = model_.mutable_graph()->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = shape->add_dim();
      if (std::holds_alternative<std::int64_t>(d))
        dim->set_dim_value(std::get<std::int64_t>(d));
      else
        dim->set_dim_param(std::get<std::string>(d));
    }
  }
  void output(const std::string& name, int type = onnx::TensorProto_DataType_FLOAT) {
    auto* v = model_.mutable_graph()->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  }
  // A float initializer of zeros.
  void weight(const std::string& name, const std::vector<std::int64_t>& dims) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    std::int64_t n = 1;
    for (auto d : dims) {
      t->add_dims(d);
      n *= d;
    }
    t->set_raw_data(std::string(static_cast<std::size_t>(n) * sizeof(float), '\0'));
  }
  void float_scalar(const std::string& name, float value) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_FLOAT);
    t->add_float_data(value);
  }
  void int64s(const std::string& name, const std::vector<std::int64_t>& values) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_INT64);
    t->add_dims(static_cast<std::int64_t>(values.size()));
    for (auto v : values) t->add_int64_data(v);
  }

  class Node {
   public:
    explicit Node(onnx::NodeProto* node) : node_(node) {}
    Node& ints(const std::string& name, const std::vector<std::int64_t>& values) {
      auto* a = attribute(name, onnx::AttributeProto::INTS);
      for (auto v : values) a->add_ints(v);
      return *this;
    }
    Node& integer(const std::string& name, std::int64_t value) {
      attribute(name, onnx::AttributeProto::INT)->set_i(value);
      return *this;
    }
    Node& real(const std::string& name, float value) {
      attribute(name, onnx::AttributeProto::FLOAT)->set_f(value);
      return *this;
    }
    Node& text(const std::string& name, const std::string& value) {
      attribute(name, onnx::AttributeProto::STRING)->set_s(value);
      return *this;
    }

   private:
    onnx::AttributeProto* attribute(const std::string& name, onnx::AttributeProto::AttributeType type) {
      auto* a = node_->add_attribute();
      a->set_name(name);
      a->set_type(type);
      return a;
    }
    onnx::NodeProto* node_;
  };

  Node node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
            const std::vector<std::string>& outputs) {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return Node(n);
  }

  void write(const std::filesystem::path& path) const {
    std::ofstream out(path, std::ios::binary);
    model_.SerializeToOstream(&out);
  }
  onnx::ModelProto& model() { return model_; }

 private:
  onnx::ModelProto model_;
};

// A small CNN with every CNN layer kind: conv+bias+relu (fused), max pool, a conv with a fused
// residual add + relu, a second identical conv+relu (a repeated layer), batch norm, a transposed
// conv, average and global pooling, Flatten (not imported), Gemm with transB and bias, Softmax
// (not imported). Input [N, 3, 32, 32], N symbolic.
inline void write_small_cnn(const std::filesystem::path& path) {
  OnnxModelBuilder m("small_cnn");
  m.input("input", {std::string("N"), std::int64_t{3}, std::int64_t{32}, std::int64_t{32}});
  m.weight("w1", {16, 3, 3, 3});
  m.weight("b1", {16});
  m.node("Conv", "conv1", {"input", "w1", "b1"}, {"c1"})
      .ints("pads", {1, 1, 1, 1})
      .ints("kernel_shape", {3, 3});
  m.node("Relu", "relu1", {"c1"}, {"r1"});
  m.node("MaxPool", "pool1", {"r1"}, {"p1"}).ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  m.weight("w2", {16, 16, 3, 3});
  m.weight("b2", {16});
  m.node("Conv", "conv2", {"p1", "w2", "b2"}, {"c2"}).ints("pads", {1, 1, 1, 1});
  m.node("Add", "add2", {"c2", "p1"}, {"a2"});
  m.node("Relu", "relu2", {"a2"}, {"r2"});
  m.weight("w3", {16, 16, 3, 3});
  m.weight("b3", {16});
  m.node("Conv", "conv3", {"r2", "w3", "b3"}, {"c3"}).ints("pads", {1, 1, 1, 1});
  m.node("Relu", "relu3", {"c3"}, {"r3"});
  m.weight("w4", {16, 16, 3, 3});
  m.weight("b4", {16});
  m.node("Conv", "conv4", {"r3", "w4", "b4"}, {"c4"}).ints("pads", {1, 1, 1, 1});
  m.node("Relu", "relu4", {"c4"}, {"r4"});
  for (const char* s : {"bn_scale", "bn_bias", "bn_mean", "bn_var"}) m.weight(s, {16});
  m.node("BatchNormalization", "bn", {"r4", "bn_scale", "bn_bias", "bn_mean", "bn_var"}, {"bn_out"})
      .real("epsilon", 1e-5f);
  m.weight("wt", {16, 8, 2, 2});
  m.node("ConvTranspose", "up", {"bn_out", "wt"}, {"u"}).ints("strides", {2, 2});
  m.node("AveragePool", "pool2", {"u"}, {"p2"}).ints("kernel_shape", {2, 2}).ints("strides", {2, 2});
  m.node("GlobalAveragePool", "gap", {"p2"}, {"g"});
  m.node("Flatten", "flatten", {"g"}, {"f"});
  m.weight("wfc", {10, 8});
  m.weight("bfc", {10});
  m.node("Gemm", "fc", {"f", "wfc", "bfc"}, {"logits"}).integer("transB", 1);
  m.node("Softmax", "softmax", {"logits"}, {"probs"}).integer("axis", 1);
  m.output("probs");
  m.write(path);
}

// One transformer encoder block over [B, S, 64] (B and S symbolic), 4 heads: layer norm, Q/K/V
// projections (MatMul + bias, three identical layers), attention as MatMul -> Mul(scale) ->
// Softmax -> MatMul (SDPA), the output projection, residual adds, a second layer norm and the
// MLP (MatMul + bias + Relu, MatMul + bias).
inline void write_transformer_block(const std::filesystem::path& path) {
  OnnxModelBuilder m("transformer_block");
  m.input("x", {std::string("B"), std::string("S"), std::int64_t{64}});
  m.weight("ln1_g", {64});
  m.weight("ln1_b", {64});
  m.node("LayerNormalization", "ln1", {"x", "ln1_g", "ln1_b"}, {"h"})
      .integer("axis", -1)
      .real("epsilon", 1e-5f);
  m.int64s("heads_shape", {0, 0, 4, 16});
  for (const std::string p : {"q", "k", "v"}) {
    m.weight("w" + p, {64, 64});
    m.weight("b" + p, {64});
    m.node("MatMul", p + "_proj", {"h", "w" + p}, {p + "_mm"});
    m.node("Add", p + "_bias", {p + "_mm", "b" + p}, {p + "_lin"});
    m.node("Reshape", p + "_split", {p + "_lin", "heads_shape"}, {p + "_heads"});
  }
  m.node("Transpose", "q_t", {"q_heads"}, {"q4"}).ints("perm", {0, 2, 1, 3});
  m.node("Transpose", "k_t", {"k_heads"}, {"k4t"}).ints("perm", {0, 2, 3, 1});
  m.node("Transpose", "v_t", {"v_heads"}, {"v4"}).ints("perm", {0, 2, 1, 3});
  m.node("MatMul", "scores", {"q4", "k4t"}, {"s"});
  m.float_scalar("scale", 0.25f);
  m.node("Mul", "scale_scores", {"s", "scale"}, {"ss"});
  m.node("Softmax", "attn_softmax", {"ss"}, {"p"}).integer("axis", -1);
  m.node("MatMul", "context", {"p", "v4"}, {"ctx4"});
  m.node("Transpose", "ctx_t", {"ctx4"}, {"ctx_heads"}).ints("perm", {0, 2, 1, 3});
  m.int64s("merge_shape", {0, 0, 64});
  m.node("Reshape", "ctx_merge", {"ctx_heads", "merge_shape"}, {"ctx"});
  m.weight("wo", {64, 64});
  m.weight("bo", {64});
  m.node("MatMul", "o_proj", {"ctx", "wo"}, {"o_mm"});
  m.node("Add", "o_bias", {"o_mm", "bo"}, {"o"});
  m.node("Add", "residual1", {"o", "x"}, {"r1"});
  m.weight("ln2_g", {64});
  m.weight("ln2_b", {64});
  m.node("LayerNormalization", "ln2", {"r1", "ln2_g", "ln2_b"}, {"h2"}).integer("axis", -1);
  m.weight("w1", {64, 256});
  m.weight("b1", {256});
  m.node("MatMul", "fc1", {"h2", "w1"}, {"f1"});
  m.node("Add", "fc1_bias", {"f1", "b1"}, {"f1b"});
  m.node("Relu", "fc1_relu", {"f1b"}, {"f1r"});
  m.weight("w2", {256, 64});
  m.weight("b2", {64});
  m.node("MatMul", "fc2", {"f1r", "w2"}, {"f2"});
  m.node("Add", "fc2_bias", {"f2", "b2"}, {"f2b"});
  m.node("Add", "residual2", {"f2b", "r1"}, {"y"});
  m.output("y");
  m.write(path);
}

// The Attention op (ONNX opset 23) over Q, K, V [1, 2, 8, 16], causal.
inline void write_attention_op(const std::filesystem::path& path) {
  OnnxModelBuilder m("attention_op", 23);
  for (const char* n : {"q", "k", "v"})
    m.input(n, {std::int64_t{1}, std::int64_t{2}, std::int64_t{8}, std::int64_t{16}});
  m.node("Attention", "attention", {"q", "k", "v"}, {"o"}).integer("is_causal", 1);
  m.output("o");
  m.write(path);
}

}  // namespace dnnbench::testing
