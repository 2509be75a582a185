// ONNX models -> one hipDNN graph per layer (docs/import.md), through Debian's libonnx: the
// protobuf model and ONNX's own shape inference. Weights are not read: every tensor becomes a
// graph input, filled as for any graph. Layers: Conv (with its bias and a following Add and
// Relu/Sigmoid/Tanh when they fuse), ConvTranspose (backward data), MatMul and Gemm (transposes,
// bias, a following activation), BatchNormalization, LayerNormalization, Max/Average/Global
// pooling, element-wise ops, and attention: MatMul -> [Mul|Div scale] -> [Add mask] -> Softmax ->
// MatMul, and the Attention op, as SDPA.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "graph/errors.hpp"
#include "input/graph_builder.hpp"
#include "input/import.hpp"
#include "tensor/dense.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;
using Dims = std::vector<std::int64_t>;

// A layer that cannot be imported, with the reason (recorded, the model goes on).
struct Skip {
  std::string reason;
};

std::optional<DataType> onnx_dtype(int type) {
  switch (type) {
    case onnx::TensorProto_DataType_FLOAT:
      return DataType::f32;
    case onnx::TensorProto_DataType_FLOAT16:
      return DataType::f16;
    case onnx::TensorProto_DataType_BFLOAT16:
      return DataType::bf16;
    case onnx::TensorProto_DataType_DOUBLE:
      return DataType::f64;
    default:
      return std::nullopt;
  }
}

struct ValueInfo {
  int elem_type = 0;
  std::vector<std::optional<std::int64_t>> dims;  // nullopt: unknown or symbolic
  std::vector<std::string> symbols;               // symbolic names, "" for known dims
  bool has_shape = false;
};

// Element-wise ops imported as one pointwise node, by ONNX op -> file spelling.
const std::map<std::string, std::string>& unary_ops() {
  static const std::map<std::string, std::string> ops{{"Relu", "relu_fwd"},
                                                      {"Sigmoid", "sigmoid_fwd"},
                                                      {"Tanh", "tanh_fwd"},
                                                      {"Exp", "exp"},
                                                      {"Log", "log"},
                                                      {"Sqrt", "sqrt"},
                                                      {"Abs", "abs"},
                                                      {"Neg", "neg"},
                                                      {"Reciprocal", "recip"},
                                                      {"Elu", "elu_fwd"},
                                                      {"Softplus", "softplus_fwd"},
                                                      {"Gelu", "gelu_fwd"}};
  return ops;
}
const std::map<std::string, std::string>& binary_ops() {
  static const std::map<std::string, std::string> ops{{"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"},
                                                      {"Div", "div"}, {"Max", "max"}, {"Min", "min"},
                                                      {"Pow", "pow"}};
  return ops;
}
// Activations that fuse after a Conv, MatMul or Gemm (the issue's list, plus Tanh).
const std::set<std::string>& fusable_activations() {
  static const std::set<std::string> ops{"Relu", "Sigmoid", "Tanh"};
  return ops;
}
// Ops that only move or reshape data, or compute shapes: listed as not imported, with this reason.
// Identity is here: exporters emit it to alias shared weights (torch.onnx.export does, on
// ResNet-50's batch-norm parameters), and no runtime computes it.
const std::set<std::string>& data_movement_ops() {
  static const std::set<std::string> ops{"Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze",
                                         "Concat",  "Split",     "Slice",   "Gather",  "Shape",
                                         "Cast",    "Expand",    "Pad",     "Tile",    "ConstantOfShape",
                                         "Range",   "Where",     "Equal",   "Identity"};
  return ops;
}

class OnnxImporter {
 public:
  OnnxImporter(const std::filesystem::path& path, const ImportOptions& options)
      : file_(path.string()), stem_(path.stem().string()), options_(options) {}

  ImportResult run() {
    load();
    index();
    for (int k = 0; k < graph().node_size(); ++k) {
      const auto& node = graph().node(k);
      if (consumed_.count(k) || node.op_type() == "Constant") continue;
      try {
        convert(k);
      } catch (const Skip& skip) {
        result_.not_imported.push_back({source(node), node.op_type(), skip.reason});
      }
    }
    return std::move(result_);
  }

 private:
  const onnx::GraphProto& graph() const { return model_.graph(); }

  void load() {
    std::ifstream in(file_, std::ios::binary);
    if (!in) throw InputError(file_, "", std::string("cannot open the file: ") + std::strerror(errno));
    if (!model_.ParseFromIstream(&in))
      throw InputError(file_, "", "not an ONNX model (the protobuf ModelProto does not parse)");
    if (!model_.has_graph()) throw InputError(file_, "", "the ONNX model has no graph");
    set_symbolic_dims();
    // Stale shapes in the file (exporters write symbolic ones) would conflict with the values of
    // --dim; ONNX's inference recomputes them all.
    auto* g = model_.mutable_graph();
    g->clear_value_info();
    // Shape inference refuses a node whose domain the model does not import; such nodes are
    // listed as not imported, so their domains are declared to let inference pass them over.
    std::set<std::string> domains;
    for (const auto& opset : model_.opset_import()) domains.insert(opset.domain());
    for (const auto& node : g->node())
      if (domains.insert(node.domain()).second) {
        auto* opset = model_.add_opset_import();
        opset->set_domain(node.domain());
        opset->set_version(1);
      }
    for (auto& output : *g->mutable_output())
      if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
    try {
      onnx::shape_inference::InferShapes(model_, onnx::OpSchemaRegistry::Instance(),
                                         onnx::ShapeInferenceOptions(/*check_type=*/false, /*error_mode=*/0,
                                                                     /*data_prop=*/true));
    } catch (const std::exception& e) {
      throw InputError(file_, "", std::string("ONNX shape inference failed: ") + e.what());
    }
  }

  // Graph inputs with symbolic dims take the --dim values; a symbol without one is an error
  // that names it (shapes must be concrete to make graphs).
  void set_symbolic_dims() {
    std::set<std::string> initializers;
    for (const auto& init : graph().initializer()) initializers.insert(init.name());
    for (auto& input : *model_.mutable_graph()->mutable_input()) {
      if (initializers.count(input.name()) || !input.type().has_tensor_type()) continue;
      auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
      for (int d = 0; d < shape->dim_size(); ++d) {
        auto* dim = shape->mutable_dim(d);
        if (dim->has_dim_value()) continue;
        const std::string symbol = dim->has_dim_param() ? dim->dim_param() : "";
        const auto it = options_.dims.find(symbol);
        if (symbol.empty() || it == options_.dims.end())
          throw InputError(
              file_, "",
              symbol.empty()
                  ? fmt::format("input `{}` has an unknown size in dimension {}; the model must give it",
                                input.name(), d)
                  : fmt::format("input `{}` dimension {} is the symbol `{}`; give its value with --dim "
                                "{}=VALUE",
                                input.name(), d, symbol, symbol));
        dim->set_dim_value(it->second);
      }
    }
  }

  static ValueInfo info_of(const onnx::TypeProto& type) {
    ValueInfo v;
    if (!type.has_tensor_type()) return v;
    v.elem_type = type.tensor_type().elem_type();
    if (!type.tensor_type().has_shape()) return v;
    v.has_shape = true;
    for (const auto& dim : type.tensor_type().shape().dim()) {
      v.dims.push_back(dim.has_dim_value() ? std::optional<std::int64_t>(dim.dim_value()) : std::nullopt);
      v.symbols.push_back(dim.has_dim_param() ? dim.dim_param() : "");
    }
    return v;
  }

  void index() {
    for (const auto& v : graph().input()) infos_[v.name()] = info_of(v.type());
    for (const auto& v : graph().value_info()) infos_[v.name()] = info_of(v.type());
    for (const auto& v : graph().output()) {
      infos_[v.name()] = info_of(v.type());
      graph_outputs_.insert(v.name());
    }
    for (const auto& init : graph().initializer()) {
      ValueInfo v;
      v.elem_type = init.data_type();
      v.has_shape = true;
      for (auto d : init.dims()) {
        v.dims.emplace_back(d);
        v.symbols.emplace_back();
      }
      infos_[init.name()] = v;
      initializers_[init.name()] = &init;
    }
    for (int k = 0; k < graph().node_size(); ++k) {
      const auto& node = graph().node(k);
      for (const auto& in : node.input())
        if (!in.empty()) consumers_[in].push_back(k);
      for (const auto& out : node.output()) producer_[out] = k;
      if (node.op_type() == "Constant")
        for (const auto& a : node.attribute())
          if (a.name() == "value" && a.has_t()) constants_[node.output(0)] = &a.t();
    }
  }

  std::string node_name(const onnx::NodeProto& node) const {
    return node.name().empty() ? node.op_type() + "_" + (node.output_size() ? node.output(0) : "")
                               : node.name();
  }
  std::string source(const onnx::NodeProto& node) const { return file_ + ":" + node_name(node); }

  // Concrete dims of a value, or Skip naming what is unknown.
  Dims dims_of(const std::string& name) const {
    const auto it = infos_.find(name);
    if (it == infos_.end() || !it->second.has_shape)
      throw Skip{fmt::format("shape inference gave no shape for `{}`", name)};
    Dims dims;
    for (std::size_t d = 0; d < it->second.dims.size(); ++d) {
      if (!it->second.dims[d])
        throw Skip{it->second.symbols[d].empty()
                       ? fmt::format("`{}` has an unknown size in dimension {}", name, d)
                       : fmt::format("`{}` dimension {} is the symbol `{}` (give --dim {}=VALUE)", name, d,
                                     it->second.symbols[d], it->second.symbols[d])};
      dims.push_back(*it->second.dims[d]);
    }
    return dims;
  }
  // The graph's type of a value: --dtype retypes fp32.
  DataType dtype_of(const std::string& name) const {
    const DataType type = stored_dtype_of(name);
    return type == DataType::f32 && options_.float_type ? *options_.float_type : type;
  }
  // The model's own type of a value.
  DataType stored_dtype_of(const std::string& name) const {
    const auto it = infos_.find(name);
    const int type = it == infos_.end() ? 0 : it->second.elem_type;
    const auto dt = onnx_dtype(type);
    if (!dt)
      throw Skip{fmt::format("`{}` has ONNX data type {} (float, float16, bfloat16 and double are imported)",
                             name,
                             onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type)))};
    return *dt;
  }

  static const onnx::AttributeProto* attribute(const onnx::NodeProto& node, std::string_view name) {
    for (const auto& a : node.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  static Dims ints(const onnx::NodeProto& node, std::string_view name, Dims fallback = {}) {
    const auto* a = attribute(node, name);
    if (!a) return fallback;
    return Dims(a->ints().begin(), a->ints().end());
  }
  static std::int64_t integer(const onnx::NodeProto& node, std::string_view name, std::int64_t fallback) {
    const auto* a = attribute(node, name);
    return a ? a->i() : fallback;
  }
  static float real(const onnx::NodeProto& node, std::string_view name, float fallback) {
    const auto* a = attribute(node, name);
    return a ? a->f() : fallback;
  }
  static std::string text(const onnx::NodeProto& node, std::string_view name, const std::string& fallback) {
    const auto* a = attribute(node, name);
    return a ? a->s() : fallback;
  }

  // The value of a one-element float initializer or Constant (an attention scale).
  std::optional<double> scalar_value(const std::string& name) const {
    const onnx::TensorProto* t = nullptr;
    if (const auto it = initializers_.find(name); it != initializers_.end()) t = it->second;
    if (const auto it = constants_.find(name); it != constants_.end()) t = it->second;
    if (!t) return std::nullopt;
    std::int64_t elements = 1;
    for (auto d : t->dims()) elements *= d;
    if (elements != 1) return std::nullopt;
    if (t->data_type() == onnx::TensorProto_DataType_FLOAT) {
      if (t->float_data_size() == 1) return t->float_data(0);
      if (t->raw_data().size() == sizeof(float)) {
        float v;
        std::memcpy(&v, t->raw_data().data(), sizeof v);
        return v;
      }
    }
    if (t->data_type() == onnx::TensorProto_DataType_DOUBLE) {
      if (t->double_data_size() == 1) return t->double_data(0);
      if (t->raw_data().size() == sizeof(double)) {
        double v;
        std::memcpy(&v, t->raw_data().data(), sizeof v);
        return v;
      }
    }
    return std::nullopt;
  }

  // The node that alone consumes `value` (not a graph output), or -1.
  int sole_consumer(const std::string& value) const {
    if (graph_outputs_.count(value)) return -1;
    const auto it = consumers_.find(value);
    if (it == consumers_.end() || it->second.size() != 1) return -1;
    return consumed_.count(it->second[0]) ? -1 : it->second[0];
  }
  int producer(const std::string& value) const {
    const auto it = producer_.find(value);
    return it == producer_.end() ? -1 : it->second;
  }

  void emit(json graph, const std::vector<int>& nodes) {
    std::string where = file_ + ":";
    for (std::size_t k = 0; k < nodes.size(); ++k) where += (k ? "+" : "") + node_name(graph_node(nodes[k]));
    result_.graphs.push_back({std::move(graph), where, 1});
    for (int k : nodes) consumed_.insert(k);
  }
  const onnx::NodeProto& graph_node(int k) const { return graph().node(k); }
  // A backward pass of a layer already emitted: its own source, `model.onnx:node#pass`.
  void emit_pass(json graph, const onnx::NodeProto& node, const std::string& pass) {
    result_.graphs.push_back({std::move(graph), source(node) + "#" + pass, 1});
  }

  std::string graph_name(const onnx::NodeProto& node) const {
    std::string name = stem_ + "_" + node_name(node);
    for (auto& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    return name;
  }

  // A following Add (with another operand, right-aligned to the output's rank) and/or an
  // activation that fuse into the layer producing `value`. Returns the nodes taken.
  struct Epilogue {
    int add = -1;
    std::string add_operand;
    int activation = -1;                // the node whose output is the activation's
    std::string activation_op;          // file spelling; "" when one unary node
    std::vector<int> activation_nodes;  // the nodes of a decomposed activation (GELU), activation last
  };

  bool is_constant(const std::string& name) const {
    return initializers_.count(name) || constants_.count(name);
  }
  // The other input of a two-input node, or "" when `value` is not one of them.
  static std::string other_input(const onnx::NodeProto& n, const std::string& value) {
    if (n.input_size() != 2) return "";
    return n.input(0) == value ? n.input(1) : n.input(1) == value ? n.input(0) : "";
  }

  // GELU as exporters write it before opset 20: x * 0.5 * (1 + Erf(x / sqrt(2))), with the two
  // multiplies in any order. Returns the nodes (the last one's output is the GELU's), or empty.
  std::vector<int> gelu_erf_nodes(const std::string& x) const {
    const auto it = consumers_.find(x);
    if (graph_outputs_.count(x) || it == consumers_.end() || it->second.size() != 2) return {};
    int div = -1, mul = -1;
    for (int k : it->second) {
      const auto& n = graph_node(k);
      if (n.op_type() == "Div" && n.input_size() == 2 && n.input(0) == x && is_constant(n.input(1)))
        div = k;
      else if (n.op_type() == "Mul")
        mul = k;
    }
    if (div < 0 || mul < 0) return {};
    const int erf = sole_consumer(graph_node(div).output(0));
    if (erf < 0 || graph_node(erf).op_type() != "Erf") return {};
    const int add = sole_consumer(graph_node(erf).output(0));
    if (add < 0 || graph_node(add).op_type() != "Add" ||
        !is_constant(other_input(graph_node(add), graph_node(erf).output(0))))
      return {};
    const std::string one_plus = graph_node(add).output(0);
    const std::string m_other = other_input(graph_node(mul), x);
    int last = -1, middle = -1;
    if (m_other == one_plus) {  // (x * (1 + erf)) * 0.5
      last = sole_consumer(graph_node(mul).output(0));
      if (last < 0 || graph_node(last).op_type() != "Mul" ||
          !is_constant(other_input(graph_node(last), graph_node(mul).output(0))))
        return {};
    } else if (is_constant(m_other)) {  // (x * 0.5) * (1 + erf)
      last = sole_consumer(graph_node(mul).output(0));
      if (last < 0 || graph_node(last).op_type() != "Mul" ||
          other_input(graph_node(last), graph_node(mul).output(0)) != one_plus)
        return {};
    } else {  // x * ((1 + erf) * 0.5)
      middle = sole_consumer(one_plus);
      if (middle < 0 || graph_node(middle).op_type() != "Mul" ||
          !is_constant(other_input(graph_node(middle), one_plus)) || graph_node(middle).output(0) != m_other)
        return {};
      last = mul;
    }
    std::vector<int> nodes{div, erf, add};
    if (middle >= 0) nodes.push_back(middle);
    if (last != mul) nodes.push_back(mul);
    nodes.push_back(last);
    return nodes;
  }
  Epilogue fusable_epilogue(const std::string& value, bool allow_add) const {
    Epilogue e;
    std::string current = value;
    int next = sole_consumer(current);
    if (allow_add && next >= 0 && graph_node(next).op_type() == "Add" && graph_node(next).input_size() == 2) {
      const auto& add = graph_node(next);
      const std::string other = add.input(0) == current ? add.input(1) : add.input(0);
      if (other != current) {
        e.add = next;
        e.add_operand = other;
        current = add.output(0);
        next = sole_consumer(current);
      }
    }
    if (next >= 0 && fusable_activations().count(graph_node(next).op_type())) {
      e.activation = next;
      e.activation_nodes = {next};
      e.activation_op = unary_ops().at(graph_node(next).op_type());
    } else if (auto gelu = gelu_erf_nodes(current); !gelu.empty()) {
      e.activation = gelu.back();
      e.activation_nodes = std::move(gelu);
      e.activation_op = "gelu_fwd";
    }
    return e;
  }

  // Appends the epilogue's nodes after `from` (an intermediate); the last writes `out_name`.
  void add_epilogue(GraphBuilder& b, const Epilogue& e, std::int64_t from, const Dims& dims, DataType type,
                    std::vector<int>& nodes, bool spatial = false) {
    std::int64_t current = from;
    const auto strides = [&](const Dims& d) { return spatial && d == dims ? spatial_strides(d) : Dims{}; };
    if (e.add >= 0) {
      const Dims other = right_aligned(dims_of(e.add_operand), dims.size());
      const auto o = b.tensor("residual", other, strides(other), dtype_of(e.add_operand));
      const auto out =
          e.activation >= 0 ? b.intermediate("added", dims) : b.tensor("y", dims, strides(dims), type);
      b.pointwise("add", current, o, out, "add");
      current = out;
      nodes.push_back(e.add);
    }
    if (e.activation >= 0) {
      const auto out = b.tensor("y", dims, strides(dims), type);
      b.pointwise(e.activation_op, current, -1, out, "activation");
      nodes.insert(nodes.end(), e.activation_nodes.begin(), e.activation_nodes.end());
    }
  }

  // Strides of an activation or filter of a convolution, pooling or batch norm: channels-last
  // with --layout nhwc, else packed (empty: the builder's default).
  Dims spatial_strides(const Dims& dims) const {
    return options_.channels_last && dims.size() >= 3 ? layout_strides(dims, true) : Dims{};
  }

  static Dims right_aligned(Dims dims, std::size_t rank) {
    while (dims.size() < rank) dims.insert(dims.begin(), 1);
    return dims;
  }

  void convert(int k) {
    const auto& node = graph_node(k);
    const std::string& op = node.op_type();
    if (!node.domain().empty() && node.domain() != "ai.onnx" &&
        !(node.domain() == "com.microsoft" && op == "Attention"))
      throw Skip{fmt::format("op domain `{}` is not imported", node.domain())};
    if (op == "Conv") return conv(k);
    if (op == "ConvTranspose") return conv_transpose(k);
    if (op == "MatMul") {
      if (sdpa_from_matmul(k)) return;
      return matmul(k, false, false, -1);
    }
    if (op == "Gemm") return gemm(k);
    if (op == "BatchNormalization") return batchnorm(k);
    if (op == "LayerNormalization") return layernorm(k);
    if (op == "MaxPool" || op == "AveragePool") return pool(k);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return global_pool(k);
    if (op == "Attention") return attention(k);
    if (op == "Pow" && rmsnorm_from_pow(k)) return;
    if (unary_ops().count(op) || binary_ops().count(op)) return pointwise(k);
    if (op == "Softmax")
      throw Skip{"softmax has no hipDNN graph node (it is imported inside attention as SDPA)"};
    if (data_movement_ops().count(op)) throw Skip{"moves or reshapes data only: no compute graph"};
    throw Skip{fmt::format("{} has no hipDNN graph node", op)};
  }

  void conv(int k) {
    const auto& node = graph_node(k);
    const Dims x = dims_of(node.input(0)), w = dims_of(node.input(1)), y = dims_of(node.output(0));
    if (x.size() < 3) throw Skip{"1-D (or lower) input"};
    const std::size_t sd = x.size() - 2;
    ConvSettings s;
    s.stride = ints(node, "strides", Dims(sd, 1));
    s.dilation = ints(node, "dilations", Dims(sd, 1));
    const std::string auto_pad = text(node, "auto_pad", "NOTSET");
    const Dims pads = ints(node, "pads", Dims(2 * sd, 0));
    s.pre_padding.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(sd));
    s.post_padding.assign(pads.begin() + static_cast<std::ptrdiff_t>(sd), pads.end());
    if (auto_pad != "NOTSET")
      same_padding(auto_pad, x, w, y, s.stride, s.dilation, s.pre_padding, s.post_padding);
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    std::vector<int> nodes{k};
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    const Epilogue e = fusable_epilogue(node.output(0), true);
    const bool fused = bias || e.add >= 0 || e.activation >= 0;
    const auto xt = b.tensor("x", x, spatial_strides(x), type);
    const auto wt = b.tensor("w", w, spatial_strides(w), dtype_of(node.input(1)));
    const auto yt = fused ? b.intermediate("conv_out", y) : b.tensor("y", y, spatial_strides(y), type);
    b.conv("fwd", xt, wt, yt, s);
    std::int64_t last = yt;
    if (bias) {
      Dims bias_dims(y.size(), 1);
      bias_dims[1] = y[1];
      const auto bt = b.tensor("bias", bias_dims, {}, dtype_of(node.input(2)));
      const bool more = e.add >= 0 || e.activation >= 0;
      const auto out = more ? b.intermediate("biased", y) : b.tensor("y", y, spatial_strides(y), type);
      b.pointwise("add", yt, bt, out, "bias");
      last = out;
    }
    add_epilogue(b, e, last, y, type, nodes, true);
    emit(b.take(), nodes);
    if (options_.backward) conv_backward(node, x, w, y, s);
  }

  // The gradients of a convolution: backward data (dy, w -> dx), left out where x is the model's
  // input (the stem's image needs no gradient), and backward weights (x, dy -> dw).
  void conv_backward(const onnx::NodeProto& node, const Dims& x, const Dims& w, const Dims& y,
                     const ConvSettings& s) {
    const DataType type = dtype_of(node.input(0));
    const bool model_input = graph().input_size() > 0 && graph().input(0).name() == node.input(0);
    if (!model_input) {
      GraphBuilder b(graph_name(node) + "_dgrad", type);
      const auto dy = b.tensor("dy", y, spatial_strides(y), type);
      const auto wt = b.tensor("w", w, spatial_strides(w), dtype_of(node.input(1)));
      b.conv("bwd_data", dy, wt, b.tensor("dx", x, spatial_strides(x), type), s);
      emit_pass(b.take(), node, "dgrad");
    }
    GraphBuilder b(graph_name(node) + "_wgrad", type);
    const auto xt = b.tensor("x", x, spatial_strides(x), type);
    const auto dy = b.tensor("dy", y, spatial_strides(y), type);
    b.conv("bwd_weights", xt, dy, b.tensor("dw", w, spatial_strides(w), dtype_of(node.input(1))), s);
    emit_pass(b.take(), node, "wgrad");
  }

  // SAME_UPPER / SAME_LOWER / VALID: the padding that gives the inferred output.
  static void same_padding(const std::string& mode, const Dims& x, const Dims& w, const Dims& y,
                           const Dims& stride, const Dims& dilation, Dims& pre, Dims& post) {
    for (std::size_t d = 0; d < pre.size(); ++d) {
      if (mode == "VALID") {
        pre[d] = post[d] = 0;
        continue;
      }
      const std::int64_t extent = dilation[d] * (w[d + 2] - 1) + 1;
      const std::int64_t total = std::max<std::int64_t>((y[d + 2] - 1) * stride[d] + extent - x[d + 2], 0);
      pre[d] = mode == "SAME_LOWER" ? (total + 1) / 2 : total / 2;
      post[d] = total - pre[d];
    }
  }

  void conv_transpose(int k) {
    const auto& node = graph_node(k);
    const Dims x = dims_of(node.input(0)), w = dims_of(node.input(1)), y = dims_of(node.output(0));
    if (x.size() < 3) throw Skip{"1-D (or lower) input"};
    const std::size_t sd = x.size() - 2;
    if (text(node, "auto_pad", "NOTSET") != "NOTSET")
      throw Skip{"ConvTranspose with auto_pad is not imported"};
    ConvSettings s;
    s.stride = ints(node, "strides", Dims(sd, 1));
    s.dilation = ints(node, "dilations", Dims(sd, 1));
    const Dims pads = ints(node, "pads", Dims(2 * sd, 0));
    s.pre_padding.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(sd));
    s.post_padding.assign(pads.begin() + static_cast<std::ptrdiff_t>(sd), pads.end());
    // The transposed conv's output is the backward-data pass's dx; output_padding only widens it
    // (below the stride), which the floor of the forward size formula absorbs.
    for (std::size_t d = 0; d < sd; ++d)
      if (window_output_size(y[d + 2], s.pre_padding[d], s.post_padding[d], w[d + 2], s.stride[d],
                             s.dilation[d]) != x[d + 2])
        throw Skip{"the output shape does not follow from the convolution's settings"};
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    std::vector<int> nodes{k};
    const bool bias = node.input_size() > 2 && !node.input(2).empty();
    const auto dy = b.tensor("dy", x, spatial_strides(x), type);
    const auto wt = b.tensor("w", w, spatial_strides(w), dtype_of(node.input(1)));
    const auto dx = bias ? b.intermediate("conv_out", y) : b.tensor("dx", y, spatial_strides(y), type);
    b.conv("bwd_data", dy, wt, dx, s);
    if (bias) {
      Dims bias_dims(y.size(), 1);
      bias_dims[1] = y[1];
      const auto bt = b.tensor("bias", bias_dims, {}, dtype_of(node.input(2)));
      b.pointwise("add", dx, bt, b.tensor("y", y, spatial_strides(y), type), "bias");
    }
    emit(b.take(), nodes);
  }

  // MatMul (and Gemm): a [.., M, K] x b [.., K, N], transposes as strides, then a bias add from
  // `bias_input` or a following Add of a constant, and a following activation.
  void matmul(int k, bool trans_a, bool trans_b, int bias_input) {
    const auto& node = graph_node(k);
    Dims a = dims_of(node.input(0)), w = dims_of(node.input(1));
    const Dims c = dims_of(node.output(0));
    if (a.size() < 2 || w.size() < 2) throw Skip{"a 1-D operand (vector product) is not imported"};
    const std::size_t rank = c.size();
    a = right_aligned(a, rank);
    w = right_aligned(w, rank);
    const auto transposed = [](Dims d, bool t) {
      // Logical dims [.., rows, cols] stored transposed: strides of the swapped packed layout.
      if (!t) return std::pair{d, c_order_strides(d)};
      Dims stored = d;
      std::swap(stored[d.size() - 1], stored[d.size() - 2]);
      auto strides = c_order_strides(stored);
      std::swap(strides[d.size() - 1], strides[d.size() - 2]);
      return std::pair{d, strides};
    };
    if (trans_a) std::swap(a[rank - 1], a[rank - 2]);
    if (trans_b) std::swap(w[rank - 1], w[rank - 2]);
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    std::vector<int> nodes{k};
    std::string bias_name = bias_input >= 0 && node.input_size() > bias_input ? node.input(bias_input) : "";
    Epilogue e = fusable_epilogue(node.output(0), bias_name.empty());
    // A following Add of a constant is the layer's bias, not a residual.
    if (e.add >= 0 && initializers_.count(e.add_operand)) {
      bias_name = e.add_operand;
      nodes.push_back(e.add);
      e.add = -1;
    }
    const bool bias = !bias_name.empty();
    const bool fused = bias || e.add >= 0 || e.activation >= 0;
    const auto [ad, as] = transposed(a, trans_a);
    const auto [wd, ws] = transposed(w, trans_b);
    const auto at = b.tensor("a", ad, as, type);
    const auto bt = b.tensor("b", wd, ws, dtype_of(node.input(1)));
    const auto ct = fused ? b.intermediate("mm_out", c) : b.tensor("c", c, {}, type);
    b.matmul(at, bt, ct);
    std::int64_t last = ct;
    if (bias) {
      const auto bias_t = b.tensor("bias", right_aligned(dims_of(bias_name), rank), {}, dtype_of(bias_name));
      const bool more = e.add >= 0 || e.activation >= 0;
      const auto out = more ? b.intermediate("biased", c) : b.tensor("c", c, {}, type);
      b.pointwise("add", ct, bias_t, out, "bias");
      last = out;
    }
    add_epilogue(b, e, last, c, type, nodes);
    emit(b.take(), nodes);
    if (options_.backward) matmul_backward(node, ad, as, wd, ws, c, trans_a);
  }

  // The gradients of C = A B as matmuls: dA = dC Bᵀ (stored as A) and dB = Aᵀ dC (stored as B).
  // A weight B shared over A's batch dims gets the gradient summed over them, as one matmul over
  // the flattened rows. A gradient that needs a sum over broadcast dims otherwise is left out.
  void matmul_backward(const onnx::NodeProto& node, const Dims& a, const Dims& as, const Dims& b_dims,
                       const Dims& bs, const Dims& c, bool trans_a) {
    const std::size_t rank = c.size();
    const auto lead = [&](const Dims& d) { return Dims(d.begin(), d.end() - 2); };
    const auto swapped = [&](Dims d) {
      std::swap(d[rank - 1], d[rank - 2]);
      return d;
    };
    const DataType type = dtype_of(node.input(0)), b_type = dtype_of(node.input(1));
    if (lead(a) == lead(c)) {
      GraphBuilder g(graph_name(node) + "_dgrad", type);
      const auto dc = g.tensor("dc", c, {}, type);
      const auto bt = g.tensor("b", swapped(b_dims), swapped(bs), b_type);
      g.matmul(dc, bt, g.tensor("da", a, as, type));
      emit_pass(g.take(), node, "dgrad");
    }
    const Dims b_lead = lead(b_dims);
    if (b_lead == lead(c)) {
      GraphBuilder g(graph_name(node) + "_wgrad", type);
      const auto at = g.tensor("a", swapped(a), swapped(as), type);
      const auto dc = g.tensor("dc", c, {}, type);
      g.matmul(at, dc, g.tensor("db", b_dims, bs, b_type));
      emit_pass(g.take(), node, "wgrad");
    } else if (std::all_of(b_lead.begin(), b_lead.end(), [](std::int64_t d) { return d == 1; }) &&
               lead(a) == lead(c) && !trans_a) {
      std::int64_t rows = a[rank - 2];
      for (auto d : lead(c)) rows *= d;
      const std::int64_t kk = a[rank - 1], n = c[rank - 1];
      GraphBuilder g(graph_name(node) + "_wgrad", type);
      const auto at = g.tensor("a", {kk, rows}, {1, kk}, type);
      const auto dc = g.tensor("dc", {rows, n}, {}, type);
      g.matmul(at, dc, g.tensor("db", {kk, n}, {bs[rank - 2], bs[rank - 1]}, b_type));
      emit_pass(g.take(), node, "wgrad");
    }
  }

  void gemm(int k) {
    const auto& node = graph_node(k);
    if (real(node, "alpha", 1.0f) != 1.0f) throw Skip{"Gemm with alpha != 1 is not imported"};
    if (node.input_size() > 2 && !node.input(2).empty() && real(node, "beta", 1.0f) != 1.0f)
      throw Skip{"Gemm with beta != 1 is not imported"};
    matmul(k, integer(node, "transA", 0) != 0, integer(node, "transB", 0) != 0,
           node.input_size() > 2 && !node.input(2).empty() ? 2 : -1);
  }

  void batchnorm(int k) {
    const auto& node = graph_node(k);
    if (node.output_size() > 1 && std::any_of(node.output().begin() + 1, node.output().end(),
                                              [](const std::string& o) { return !o.empty(); }))
      throw Skip{"training-mode BatchNormalization (running statistics outputs) is not imported"};
    const Dims x = dims_of(node.input(0));
    if (x.size() < 2) throw Skip{"input of rank < 2"};
    Dims stats(x.size(), 1);
    stats[1] = x[1];
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    const auto xt = b.tensor("x", x, spatial_strides(x), type);
    // Statistics, scale and bias keep the model's type: mixed precision runs batch norm with
    // fp32 parameters (as MIOpen's bnormfp16 and cuDNN's fp16 batch norm do).
    const auto st = [&](const std::string& name, int input) {
      return b.tensor(name, stats, {}, stored_dtype_of(node.input(input)));
    };
    const auto scale = st("scale", 1), bias = st("bias", 2), mean = st("mean", 3),
               variance = st("variance", 4);
    const auto eps = b.scalar("epsilon", real(node, "epsilon", 1e-5f));
    const auto y = b.tensor("y", x, spatial_strides(x), type);
    b.node("BatchnormInferenceAttributesVarianceExt", "batchnorm",
           {{"x", xt},
            {"mean", mean},
            {"variance", variance},
            {"scale", scale},
            {"bias", bias},
            {"epsilon", eps}},
           {{"y", y}});
    emit(b.take(), {k});
  }

  void layernorm(int k) {
    const auto& node = graph_node(k);
    if (node.output_size() > 1 && std::any_of(node.output().begin() + 1, node.output().end(),
                                              [](const std::string& o) { return !o.empty(); }))
      throw Skip{"LayerNormalization with mean / inv_std_dev outputs is not imported"};
    const Dims x = dims_of(node.input(0));
    const auto rank = static_cast<std::int64_t>(x.size());
    std::int64_t axis = integer(node, "axis", -1);
    if (axis < 0) axis += rank;
    if (axis < 1 || axis >= rank) throw Skip{"LayerNormalization over the batch axis is not imported"};
    const Dims norm(x.begin() + axis, x.end());
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    const auto xt = b.tensor("x", x, {}, type);
    const auto scale = b.tensor("scale", norm, {}, dtype_of(node.input(1)));
    const bool has_bias = node.input_size() > 2 && !node.input(2).empty();
    const auto bias =
        b.tensor("bias", norm, {}, has_bias ? dtype_of(node.input(2)) : dtype_of(node.input(1)));
    const auto eps = b.scalar("epsilon", real(node, "epsilon", 1e-5f));
    const auto y = b.tensor("y", x, {}, type);
    b.node("LayernormAttributes", "layernorm",
           {{"x", xt}, {"scale", scale}, {"bias", bias}, {"epsilon", eps}}, {{"y", y}},
           json{{"normalized_dim_count", rank - axis}, {"forward_phase", "INFERENCE"}});
    emit(b.take(), {k});
  }

  void pool(int k) {
    const auto& node = graph_node(k);
    const bool max = node.op_type() == "MaxPool";
    if (node.output_size() > 1 && !node.output(1).empty())
      throw Skip{"MaxPool with an Indices output is not imported"};
    const Dims x = dims_of(node.input(0)), y = dims_of(node.output(0));
    if (x.size() < 3) throw Skip{"input of rank < 3"};
    const std::size_t sd = x.size() - 2;
    const Dims dil = ints(node, "dilations", Dims(sd, 1));
    if (std::any_of(dil.begin(), dil.end(), [](std::int64_t d) { return d != 1; }))
      throw Skip{"dilated pooling has no hipDNN equivalent"};
    PoolSettings s;
    s.window = ints(node, "kernel_shape");
    if (s.window.size() != sd) throw Skip{"kernel_shape is missing or of the wrong rank"};
    s.stride = ints(node, "strides", Dims(sd, 1));
    const Dims pads = ints(node, "pads", Dims(2 * sd, 0));
    s.pre_padding.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(sd));
    s.post_padding.assign(pads.begin() + static_cast<std::ptrdiff_t>(sd), pads.end());
    const std::string auto_pad = text(node, "auto_pad", "NOTSET");
    Dims window_as_w(2, 0);
    window_as_w.insert(window_as_w.end(), s.window.begin(), s.window.end());
    if (auto_pad != "NOTSET")
      same_padding(auto_pad, x, window_as_w, y, s.stride, Dims(sd, 1), s.pre_padding, s.post_padding);
    // ceil_mode: the extra window at the end reads padding, so widen the end padding to make
    // the inferred output.
    for (std::size_t d = 0; d < sd; ++d) {
      const std::int64_t need = (y[d + 2] - 1) * s.stride[d] + s.window[d] - x[d + 2] - s.pre_padding[d];
      if (window_output_size(x[d + 2], s.pre_padding[d], s.post_padding[d], s.window[d], s.stride[d]) !=
          y[d + 2])
        s.post_padding[d] = std::max<std::int64_t>(need, 0);
      if (window_output_size(x[d + 2], s.pre_padding[d], s.post_padding[d], s.window[d], s.stride[d]) !=
          y[d + 2])
        throw Skip{"the output shape does not follow from the pooling settings"};
    }
    s.mode = max                                          ? "MAXPOOL"
             : integer(node, "count_include_pad", 0) != 0 ? "AVGPOOL_INCLUDE_PADDING"
                                                          : "AVGPOOL_EXCLUDE_PADDING";
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    b.pool(b.tensor("x", x, spatial_strides(x), type), b.tensor("y", y, spatial_strides(y), type), s);
    emit(b.take(), {k});
  }

  void global_pool(int k) {
    const auto& node = graph_node(k);
    const Dims x = dims_of(node.input(0));
    if (x.size() < 3) throw Skip{"input of rank < 3"};
    PoolSettings s;
    s.window.assign(x.begin() + 2, x.end());
    s.stride.assign(x.size() - 2, 1);
    s.pre_padding.assign(x.size() - 2, 0);
    s.post_padding = s.pre_padding;
    s.mode = node.op_type() == "GlobalMaxPool" ? "MAXPOOL" : "AVGPOOL_EXCLUDE_PADDING";
    Dims y(x.size(), 1);
    y[0] = x[0];
    y[1] = x[1];
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    b.pool(b.tensor("x", x, spatial_strides(x), type), b.tensor("y", y, spatial_strides(y), type), s);
    emit(b.take(), {k});
  }

  void pointwise(int k) {
    const auto& node = graph_node(k);
    const std::string& op = node.op_type();
    const Dims y = dims_of(node.output(0));
    const DataType type = dtype_of(node.output(0));
    GraphBuilder b(graph_name(node), type);
    const bool binary = binary_ops().count(op) > 0;
    if (op == "Elu" || op == "Softplus" || (op == "Gelu" && text(node, "approximate", "none") != "none"))
      if (attribute(node, "alpha") || attribute(node, "approximate"))
        throw Skip{fmt::format("{} with attributes is not imported", op)};
    const auto a =
        b.tensor("a", right_aligned(dims_of(node.input(0)), y.size()), {}, dtype_of(node.input(0)));
    const auto c =
        binary ? b.tensor("b", right_aligned(dims_of(node.input(1)), y.size()), {}, dtype_of(node.input(1)))
               : std::int64_t{-1};
    b.pointwise(binary ? binary_ops().at(op) : unary_ops().at(op), a, c, b.tensor("y", y, {}, type),
                "pointwise");
    emit(b.take(), {k});
  }

  // RMSNorm as exporters write it before opset 23 (which has RMSNormalization): Pow(x, 2) ->
  // ReduceMean(last axis, keepdims) -> Add(epsilon) -> Sqrt -> Reciprocal or Div(1, .) ->
  // Mul(x, .) [-> Cast] [-> Mul(scale)]. One RMSNormAttributes graph; a scale of ones where the
  // model has none.
  bool rmsnorm_from_pow(int k) {
    const auto& pow = graph_node(k);
    const auto exponent = pow.input_size() == 2 ? scalar_value(pow.input(1)) : std::nullopt;
    if (!exponent || *exponent != 2.0) return false;
    const std::string x = pow.input(0);
    const auto out = [&](int n) { return graph_node(n).output(0); };
    const auto is = [&](int n, const char* op) { return n >= 0 && graph_node(n).op_type() == op; };
    std::vector<int> nodes{k};
    const int mean = sole_consumer(out(k));
    if (!is(mean, "ReduceMean") || integer(graph_node(mean), "keepdims", 1) != 1) return false;
    const Dims xd = dims_of(x);
    const auto rank = static_cast<std::int64_t>(xd.size());
    const Dims axes = ints(graph_node(mean), "axes");
    if (rank < 2 || axes.size() != 1 || (axes[0] != -1 && axes[0] != rank - 1)) return false;
    const int add = sole_consumer(out(mean));
    const auto epsilon =
        is(add, "Add") ? scalar_value(other_input(graph_node(add), out(mean))) : std::nullopt;
    if (!epsilon) return false;
    const int root = sole_consumer(out(add));
    if (!is(root, "Sqrt")) return false;
    const int inverse = sole_consumer(out(root));
    const bool reciprocal =
        is(inverse, "Reciprocal") || (is(inverse, "Div") && graph_node(inverse).input(1) == out(root) &&
                                      scalar_value(graph_node(inverse).input(0)) == 1.0);
    if (!reciprocal) return false;
    const int normalize = sole_consumer(out(inverse));
    if (!is(normalize, "Mul") || other_input(graph_node(normalize), out(inverse)) != x) return false;
    nodes.insert(nodes.end(), {mean, add, root, inverse, normalize});
    std::string value = out(normalize);
    int next = sole_consumer(value);
    skip_casts(nodes, value, next);
    std::string scale;
    if (is(next, "Mul")) {
      const std::string other = other_input(graph_node(next), value);
      const auto it = infos_.find(other);
      if (!other.empty() && it != infos_.end() && it->second.has_shape &&
          right_aligned(dims_of(other), xd.size()) == right_aligned({xd.back()}, xd.size())) {
        scale = other;
        nodes.push_back(next);
      }
    }
    const DataType type = dtype_of(x);
    GraphBuilder b(graph_name(pow) + "_rmsnorm", type);
    const auto xt = b.tensor("x", xd, {}, type);
    const auto st = b.tensor("scale", {xd.back()}, {}, scale.empty() ? type : dtype_of(scale));
    const auto et = b.scalar("epsilon", *epsilon);
    b.node("RMSNormAttributes", "rmsnorm", {{"x", xt}, {"scale", st}, {"epsilon", et}},
           {{"y", b.tensor("y", xd, {}, type)}}, json{{"forward_phase", "INFERENCE"}});
    emit(b.take(), nodes);
    return true;
  }

  // Casts around the softmax (transformers' eager attention computes it in fp32, `softmax(...,
  // dtype=float32).to(query.dtype)`) are part of the attention: the graph's SDPA computes in fp32.
  void skip_casts(std::vector<int>& nodes, std::string& value, int& next) const {
    while (next >= 0 && graph_node(next).op_type() == "Cast") {
      nodes.push_back(next);
      value = graph_node(next).output(0);
      next = sole_consumer(value);
    }
  }

  // MatMul(q, kt) -> [Mul|Div by a constant] -> [Add mask] -> Softmax(last axis) -> MatMul(., v).
  bool sdpa_from_matmul(int k) {
    const auto& qk = graph_node(k);
    std::vector<int> nodes{k};
    std::string value = qk.output(0);
    double scale = 1.0;
    std::string mask;
    int next = sole_consumer(value);
    if (next >= 0 && (graph_node(next).op_type() == "Mul" || graph_node(next).op_type() == "Div")) {
      const auto& n = graph_node(next);
      const std::string other = n.input(0) == value ? n.input(1) : n.input(0);
      const auto v = scalar_value(other);
      if (!v || (n.op_type() == "Div" && n.input(1) != other)) return false;
      scale = n.op_type() == "Mul" ? *v : 1.0 / *v;
      nodes.push_back(next);
      value = n.output(0);
      next = sole_consumer(value);
    }
    if (next >= 0 && graph_node(next).op_type() == "Add") {
      const auto& n = graph_node(next);
      mask = n.input(0) == value ? n.input(1) : n.input(0);
      nodes.push_back(next);
      value = n.output(0);
      next = sole_consumer(value);
    }
    skip_casts(nodes, value, next);
    if (next < 0 || graph_node(next).op_type() != "Softmax") return false;
    const auto& softmax = graph_node(next);
    const auto rank = static_cast<std::int64_t>(dims_of(value).size());
    const std::int64_t axis = integer(softmax, "axis", -1);
    if (axis != -1 && axis != rank - 1) return false;
    nodes.push_back(next);
    value = softmax.output(0);
    next = sole_consumer(value);
    skip_casts(nodes, value, next);
    if (next < 0 || graph_node(next).op_type() != "MatMul" || graph_node(next).input(0) != value)
      return false;
    const auto& pv = graph_node(next);
    nodes.push_back(next);
    Dims q = dims_of(qk.input(0)), kt = dims_of(qk.input(1)), v = dims_of(pv.input(1)),
         o = dims_of(pv.output(0));
    Dims mask_dims = mask.empty() ? Dims{} : right_aligned(dims_of(mask), q.size());
    // Grouped-query attention written with broadcasting: q [B, Hkv, G, S, D] against k and v
    // [B, Hkv, 1, L, D] is SDPA of Hkv * G query heads over Hkv key-value heads, in the same memory.
    if (q.size() == 5 && kt.size() == 5 && v.size() == 5 && kt[2] == 1 && v[2] == 1 &&
        (mask.empty() || mask_dims[2] == 1)) {
      q = {q[0], q[1] * q[2], q[3], q[4]};
      o = {o[0], o[1] * o[2], o[3], o[4]};
      kt = {kt[0], kt[1], kt[3], kt[4]};
      v = {v[0], v[1], v[3], v[4]};
      if (!mask.empty()) mask_dims = {mask_dims[0], mask_dims[1], mask_dims[3], mask_dims[4]};
    }
    if (q.size() != 4 || kt.size() != 4 || v.size() != 4) return false;  // [B, H, S, D] only
    const Dims kd{kt[0], kt[1], kt[3], kt[2]};
    const DataType type = dtype_of(qk.input(0));
    GraphBuilder b(graph_name(qk) + "_sdpa", type);
    const auto qt = b.tensor("q", q, {}, type);
    const auto ktt = b.tensor("k", kd, {}, type);
    const auto vt = b.tensor("v", v, {}, type);
    const auto ot = b.tensor("o", o, {}, type);
    if (!mask.empty()) {
      const auto mt = b.tensor("attn_mask", mask_dims, {}, dtype_of(mask));
      b.node("SdpaAttributes", "sdpa", {{"q", qt}, {"k", ktt}, {"v", vt}, {"attn_mask", mt}}, {{"o", ot}},
             json{{"causal_mask", false}, {"attn_scale_value", scale}, {"generate_stats", false}});
    } else {
      b.sdpa(qt, ktt, vt, ot, scale, false);
    }
    emit(b.take(), nodes);
    if (options_.backward)
      sdpa_backward(qk, q, kd, v, o, type, scale, false, mask_dims, mask.empty() ? type : dtype_of(mask));
    return true;
  }

  // The attention's backward (SdpaBackward: q, k, v, o, do and the forward's logsumexp stats ->
  // dq, dk, dv), with the forward's mask and scale.
  void sdpa_backward(const onnx::NodeProto& node, const Dims& q, const Dims& k, const Dims& v, const Dims& o,
                     DataType type, double scale, bool causal, const Dims& mask, DataType mask_type) {
    GraphBuilder b(graph_name(node) + "_sdpa_bwd", type);
    std::vector<std::pair<std::string, std::int64_t>> inputs{
        {"q", b.tensor("q", q, {}, type)},
        {"k", b.tensor("k", k, {}, type)},
        {"v", b.tensor("v", v, {}, type)},
        {"o", b.tensor("o", o, {}, type)},
        {"do", b.tensor("do", o, {}, type)},
        {"stats", b.tensor("stats", {q[0], q[1], q[2], 1}, {}, DataType::f32)}};
    if (!mask.empty()) inputs.emplace_back("attn_mask", b.tensor("attn_mask", mask, {}, mask_type));
    const auto dq = b.tensor("dq", q, {}, type), dk = b.tensor("dk", k, {}, type),
               dv = b.tensor("dv", v, {}, type);
    b.node("SdpaBackwardAttributes", "sdpa_bwd", inputs, {{"dq", dq}, {"dk", dk}, {"dv", dv}},
           json{{"causal_mask", causal}, {"attn_scale_value", scale}});
    emit_pass(b.take(), node, "sdpa_bwd");
  }

  // The Attention op (ONNX opset 23; also com.microsoft's with 4-D inputs): Q, K, V [B, H, S, D],
  // or 3-D [B, S, H*D] with q_num_heads / kv_num_heads.
  void attention(int k) {
    const auto& node = graph_node(k);
    if (node.input_size() < 3) throw Skip{"Attention without separate Q, K and V inputs is not imported"};
    Dims q = dims_of(node.input(0)), kk = dims_of(node.input(1)), v = dims_of(node.input(2));
    const auto to4 = [&](Dims d, std::int64_t heads) {
      if (d.size() == 4) return d;
      if (d.size() != 3 || heads <= 0 || d[2] % heads != 0)
        throw Skip{"Attention inputs must be 4-D, or 3-D with q_num_heads / kv_num_heads"};
      return Dims{d[0], heads, d[1], d[2] / heads};
    };
    q = to4(q, integer(node, "q_num_heads", 0));
    kk = to4(kk, integer(node, "kv_num_heads", 0));
    v = to4(v, integer(node, "kv_num_heads", 0));
    const double scale = real(node, "scale", static_cast<float>(1.0 / std::sqrt(static_cast<double>(q[3]))));
    const bool causal = integer(node, "is_causal", 0) != 0;
    if (node.input_size() > 4 && !node.input(4).empty())
      throw Skip{"Attention with a KV cache is not imported"};
    const Dims o{q[0], q[1], q[2], v[3]};
    const DataType type = dtype_of(node.input(0));
    GraphBuilder b(graph_name(node), type);
    const auto qt = b.tensor("q", q, {}, type), kt = b.tensor("k", kk, {}, type),
               vt = b.tensor("v", v, {}, type);
    const auto ot = b.tensor("o", o, {}, type);
    const std::string mask = node.input_size() > 3 ? node.input(3) : "";
    if (!mask.empty()) {
      const auto mt = b.tensor("attn_mask", right_aligned(dims_of(mask), 4), {}, dtype_of(mask));
      b.node("SdpaAttributes", "sdpa", {{"q", qt}, {"k", kt}, {"v", vt}, {"attn_mask", mt}}, {{"o", ot}},
             json{{"causal_mask", causal}, {"attn_scale_value", scale}, {"generate_stats", false}});
    } else {
      b.sdpa(qt, kt, vt, ot, scale, causal);
    }
    emit(b.take(), {k});
    if (options_.backward)
      sdpa_backward(node, q, kk, v, o, type, scale, causal,
                    mask.empty() ? Dims{} : right_aligned(dims_of(mask), 4),
                    mask.empty() ? type : dtype_of(mask));
  }

  std::string file_, stem_;
  const ImportOptions& options_;
  onnx::ModelProto model_;
  std::map<std::string, ValueInfo> infos_;
  std::map<std::string, const onnx::TensorProto*> initializers_, constants_;
  std::map<std::string, std::vector<int>> consumers_;
  std::map<std::string, int> producer_;
  std::set<std::string> graph_outputs_;
  std::set<int> consumed_;
  ImportResult result_;
};

}  // namespace

bool onnx_import_available() {
  return true;
}

ImportResult import_onnx_file(const std::filesystem::path& path, const ImportOptions& options) {
  return OnnxImporter(path, options).run();
}

}  // namespace dnnbench
