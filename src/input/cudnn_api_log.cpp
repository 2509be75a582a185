#include "input/cudnn_api_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "input/cudnn_log_calls.hpp"
#include "input/graph_builder.hpp"
#include "input/log_lines.hpp"
#include "tensor/dtype.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

// The graph JSON's layout; a log with another version is reported per graph, not guessed at.
constexpr int kSchemaVersion = 4;
// The function name an execution counted from its plan block is remembered under.
constexpr std::string_view kPlanExecution = "cudnnBackendExecute (plan)";
// Distinct graphs remembered by their printed form (a log of more is a hostile one).
constexpr std::size_t kMaxDistinct = 100000;
constexpr std::string_view kOpPrefix = "CUDNN_BACKEND_OPERATION_";
constexpr std::string_view kOpSuffix = "_DESCRIPTOR";

std::string op_kind(const json& node) {
  std::string op = node.value("operation", std::string("?"));
  if (op.starts_with(kOpPrefix)) op = op.substr(kOpPrefix.size());
  if (op.ends_with(kOpSuffix)) op.resize(op.size() - kOpSuffix.size());
  return op;
}

std::string strip(std::string text, std::string_view prefix) {
  return text.starts_with(prefix) ? text.substr(prefix.size()) : text;
}

// CUDNN_DATA_HALF -> "half"
std::string data_type_name(const std::string& cudnn) {
  static const std::map<std::string, std::string, std::less<>> names = {
      {"FLOAT", "float"},     {"HALF", "half"},         {"BFLOAT16", "bfloat16"}, {"DOUBLE", "double"},
      {"INT8", "int8"},       {"UINT8", "uint8"},       {"INT32", "int32"},       {"INT64", "int64"},
      {"BOOLEAN", "boolean"}, {"FP8_E4M3", "fp8_e4m3"}, {"FP8_E5M2", "fp8_e5m2"},
  };
  const auto it = names.find(strip(cudnn, "CUDNN_DATA_"));
  if (it == names.end()) throw std::invalid_argument("tensor data type " + cudnn + " has no graph type");
  return it->second;
}

std::int64_t uid_of(const json& node, const char* port) {
  const auto it = node.find(port);
  if (it == node.end() || !it->is_string())
    throw std::invalid_argument(fmt::format("{} has no {} tensor", op_kind(node), port));
  return std::stoll(it->get<std::string>());
}

std::optional<std::int64_t> optional_uid(const json& node, const char* port) {
  const auto it = node.find(port);
  if (it == node.end() || !it->is_string()) return std::nullopt;
  return std::stoll(it->get<std::string>());
}

json ports(std::initializer_list<std::pair<const char*, std::optional<std::int64_t>>> list) {
  json out = json::object();
  for (const auto& [role, uid] : list)
    if (uid) out[std::string(role) + "_tensor_uid"] = *uid;
  return out;
}

// Resample windows are logged as fractions ([[3, 1], [3, 1]]): numerator over denominator.
std::vector<std::int64_t> fractions(const json& value) {
  std::vector<std::int64_t> out;
  for (const auto& v : value) {
    if (v.is_array() && v.size() == 2 && v[1].get<std::int64_t>() != 0)
      out.push_back(v[0].get<std::int64_t>() / v[1].get<std::int64_t>());
    else
      out.push_back(v.get<std::int64_t>());
  }
  return out;
}

const std::map<std::string, std::string, std::less<>>& pointwise_names() {
  static const std::map<std::string, std::string, std::less<>> names = {
      {"ADD", "add"},
      {"SUB", "sub"},
      {"MUL", "mul"},
      {"DIV", "div"},
      {"MAX", "max"},
      {"MIN", "min"},
      {"POW", "pow"},
      {"RELU_FWD", "relu_fwd"},
      {"GELU_FWD", "gelu_fwd"},
      {"GELU_APPROX_TANH_FWD", "gelu_approx_tanh_fwd"},
      {"SIGMOID_FWD", "sigmoid_fwd"},
      {"TANH_FWD", "tanh_fwd"},
      {"SWISH_FWD", "swish_fwd"},
      {"ELU_FWD", "elu_fwd"},
      {"SOFTPLUS_FWD", "softplus_fwd"},
      {"EXP", "exp"},
      {"LOG", "log"},
      {"SQRT", "sqrt"},
      {"RSQRT", "rsqrt"},
      {"ABS", "abs"},
      {"NEG", "neg"},
      {"RECIPROCAL", "reciprocal"},
      {"IDENTITY", "identity"},
  };
  return names;
}

json conv_parameters(const json& n) {
  const auto pad = n.value("pad", json::array());
  const auto lower = n.contains("pad_lower") ? n["pad_lower"] : pad;
  const auto upper = n.contains("pad_upper") ? n["pad_upper"] : pad;
  return {{"conv_mode", strip(n.value("mode", std::string("CUDNN_CROSS_CORRELATION")), "CUDNN_")},
          {"pre_padding", lower},
          {"post_padding", upper},
          {"stride", n.value("stride", json::array())},
          {"dilation", n.value("dilation", json::array())}};
}

std::string compute_type(const json& n) {
  for (const char* key : {"mathPrec", "compType"})
    if (n.contains(key) && n[key].is_string()) return data_type_name(n[key].get<std::string>());
  return "float";
}

// How many trailing dims a layer norm normalizes: those its statistics (mean, else its scale)
// do not keep. Frontends reshape x to [rows, cols, 1, 1]; the graph format counts the
// normalized dims from the end.
std::int64_t normalized_dims(const json& n, const std::map<std::int64_t, json>& tensors) {
  const auto& x = tensors.at(uid_of(n, "X"))["dim"];
  const auto rank = static_cast<std::int64_t>(x.size());
  if (const auto mean = optional_uid(n, "Mean")) {
    const auto& m = tensors.at(*mean)["dim"];
    if (static_cast<std::int64_t>(m.size()) != rank)
      throw std::invalid_argument("layer norm mean of another rank than x");
    std::int64_t k = 0;
    while (k < rank && m[rank - 1 - k] == 1) ++k;
    // Trailing dims of 1 in x itself are normalized or not alike; the first kept dim bounds them.
    return std::max<std::int64_t>(1, k);
  }
  const auto& scale = tensors.at(uid_of(n, "Scale"))["dim"];
  if (static_cast<std::int64_t>(scale.size()) != rank)
    throw std::invalid_argument("layer norm scale of another rank than x");
  std::int64_t first = 0;
  while (first < rank && scale[first] == 1 && x[first] != 1) ++first;
  return std::max<std::int64_t>(1, rank - first);
}

// One node of a plain (one operation per node) graph.
json convert_node(const json& n, std::size_t index, const std::map<std::int64_t, json>& tensors) {
  const auto kind = op_kind(n);
  json node = {{"name", fmt::format("{}_{}", kind, index)}, {"compute_data_type", compute_type(n)}};
  if (kind == "CONVOLUTION_FORWARD") {
    node["type"] = "ConvolutionFwdAttributes";
    node["inputs"] = ports({{"x", uid_of(n, "X")}, {"w", uid_of(n, "W")}});
    node["outputs"] = ports({{"y", uid_of(n, "Y")}});
    node["parameters"] = conv_parameters(n);
  } else if (kind == "CONVOLUTION_BACKWARD_DATA") {
    node["type"] = "ConvolutionBwdAttributes";
    node["inputs"] = ports({{"dy", uid_of(n, "dY")}, {"w", uid_of(n, "W")}});
    node["outputs"] = ports({{"dx", uid_of(n, "dX")}});
    node["parameters"] = conv_parameters(n);
  } else if (kind == "CONVOLUTION_BACKWARD_FILTER") {
    node["type"] = "ConvolutionWrwAttributes";
    node["inputs"] = ports({{"x", uid_of(n, "X")}, {"dy", uid_of(n, "dY")}});
    node["outputs"] = ports({{"dw", uid_of(n, "dW")}});
    node["parameters"] = conv_parameters(n);
  } else if (kind == "MATMUL") {
    node["type"] = "MatmulAttributes";
    node["inputs"] = ports({{"a", uid_of(n, "matA")}, {"b", uid_of(n, "matB")}});
    node["outputs"] = ports({{"c", uid_of(n, "matC")}});
  } else if (kind == "POINTWISE") {
    const auto mode = strip(n.value("pointwiseMode", std::string("?")), "CUDNN_POINTWISE_");
    const auto it = pointwise_names().find(mode);
    if (it == pointwise_names().end())
      throw std::invalid_argument("pointwise " + mode + " has no graph operation");
    node["type"] = "PointwiseAttributes";
    json in = ports({{"in_0", uid_of(n, "X")}, {"in_1", optional_uid(n, "B")}});
    in["operation"] = it->second;
    if (mode == "RELU_FWD") {
      // cuDNN logs an unclipped relu as clips at 0 and DBL_MAX with slope 0: the plain relu.
      const double lower = n.value("lowerClip", 0.0), upper = n.value("upperClip", HUGE_VAL),
                   slope = n.value("lowerClipSlope", 0.0);
      if (lower != 0.0) in["relu_lower_clip"] = lower;
      if (upper < 1e300) in["relu_upper_clip"] = upper;
      if (slope != 0.0) in["relu_lower_clip_slope"] = slope;
    }
    if (mode == "SWISH_FWD" && n.contains("beta")) in["swish_beta"] = n["beta"];
    if (mode == "ELU_FWD" && n.contains("alpha")) in["elu_alpha"] = n["alpha"];
    if (mode == "SOFTPLUS_FWD" && n.contains("beta")) in["softplus_beta"] = n["beta"];
    node["inputs"] = in;
    node["outputs"] = ports({{"out_0", uid_of(n, "Y")}});
  } else if (kind == "REDUCTION") {
    node["type"] = "ReductionAttributes";
    node["inputs"] = ports({{"in", uid_of(n, "X")}});
    node["outputs"] = ports({{"out", uid_of(n, "Y")}});
    node["attributes"] = {{"mode", strip(n.value("reductionOp", std::string("?")), "CUDNN_REDUCE_TENSOR_")}};
  } else if (kind == "RESAMPLE_FWD") {
    node["type"] = "ResampleFwdAttributes";
    node["inputs"] = ports({{"x", uid_of(n, "X")}});
    node["outputs"] = ports({{"y", uid_of(n, "Y")}});
    node["attributes"] = {
        {"window", fractions(n.at("windowDim"))},
        {"stride", fractions(n.at("stride"))},
        {"pre_padding", fractions(n.at("prePad"))},
        {"post_padding", fractions(n.at("postPad"))},
        {"resample_mode", strip(n.value("mode", std::string("?")), "CUDNN_RESAMPLE_")},
        {"padding_mode", strip(n.value("paddingMode", std::string("CUDNN_ZERO_PAD")), "CUDNN_")}};
  } else if (kind == "NORM_FORWARD") {
    const auto mode = strip(n.value("mode", std::string("?")), "CUDNN_");
    const bool training = n.value("fmode", std::string()) == "CUDNN_NORM_FWD_TRAINING";
    const auto phase = training ? "TRAINING" : "INFERENCE";
    if (mode == "BATCH_NORM" && training) {
      node["type"] = "BatchnormAttributes";
      node["inputs"] = ports({{"x", uid_of(n, "X")},
                              {"scale", uid_of(n, "Scale")},
                              {"bias", uid_of(n, "Bias")},
                              {"epsilon", uid_of(n, "epsilonDesc")},
                              {"prev_running_mean", optional_uid(n, "InRunningMean")},
                              {"prev_running_variance", optional_uid(n, "InRunningVar")},
                              {"momentum", optional_uid(n, "expavgfactorDesc")}});
      node["outputs"] = ports({{"y", uid_of(n, "Y")},
                               {"mean", optional_uid(n, "Mean")},
                               {"inv_variance", optional_uid(n, "InvVariance")},
                               {"next_running_mean", optional_uid(n, "OutRunningMean")},
                               {"next_running_variance", optional_uid(n, "OutRunningVar")}});
      node["attributes"] = json::object();
    } else if (mode == "LAYER_NORM") {
      node["type"] = "LayernormAttributes";
      node["inputs"] = ports({{"x", uid_of(n, "X")},
                              {"scale", uid_of(n, "Scale")},
                              {"bias", uid_of(n, "Bias")},
                              {"epsilon", uid_of(n, "epsilonDesc")}});
      node["outputs"] = ports({{"y", uid_of(n, "Y")},
                               {"mean", optional_uid(n, "Mean")},
                               {"inv_variance", optional_uid(n, "InvVariance")}});
      node["attributes"] = {{"forward_phase", phase}, {"normalized_dim_count", normalized_dims(n, tensors)}};
    } else if (mode == "RMS_NORM") {
      node["type"] = "RMSNormAttributes";
      node["inputs"] = ports({{"x", uid_of(n, "X")},
                              {"scale", uid_of(n, "Scale")},
                              {"bias", optional_uid(n, "Bias")},
                              {"epsilon", uid_of(n, "epsilonDesc")}});
      node["outputs"] = ports({{"y", uid_of(n, "Y")}, {"inv_rms", optional_uid(n, "InvVariance")}});
      node["attributes"] = {{"forward_phase", phase}};
    } else {
      throw std::invalid_argument(fmt::format("norm forward {} ({}) has no graph node", mode, phase));
    }
  } else if (kind == "NORM_BACKWARD" && strip(n.value("mode", std::string()), "CUDNN_") == "BATCH_NORM") {
    node["type"] = "BatchnormBackwardAttributes";
    node["inputs"] = ports({{"dy", uid_of(n, "DY")},
                            {"x", uid_of(n, "X")},
                            {"mean", uid_of(n, "Mean")},
                            {"inv_variance", uid_of(n, "InvVariance")},
                            {"scale", uid_of(n, "Scale")}});
    node["outputs"] =
        ports({{"dx", uid_of(n, "DX")}, {"dscale", uid_of(n, "DScale")}, {"dbias", uid_of(n, "DBias")}});
    node["attributes"] = json::object();
  } else {
    // A norm's mode says which (LAYER_NORM backward, say); other operations' modes say nothing more.
    const bool norm = kind.starts_with("NORM") && n.contains("mode") && n["mode"].is_string();
    throw std::invalid_argument(kind +
                                (norm ? " (" + strip(n["mode"].get<std::string>(), "CUDNN_") + ")" : "") +
                                " has no graph node");
  }
  return node;
}

// The fused-attention pattern (frontends build attention forward from these operations, which
// cuDNN's flash engines recognise): S = Q.K^T, scaled, masked, softmax, O = P.V: exactly two
// matmuls, an exponential and a sum reduction, and nothing heavier. Its mask is causal when an
// index comparison selects (GEN_INDEX + CMP + BINARY_SELECT); its stats are a non-virtual output
// with a last dim of 1.
std::optional<json> attention_forward(const json& graph, const std::map<std::int64_t, json>& tensors,
                                      const std::string& name) {
  std::vector<const json*> matmuls;
  bool exp = false, sum = false, select = false, gen_index = false;
  int compares = 0;
  for (const auto& n : graph["nodes"]) {
    const auto kind = op_kind(n);
    if (kind == "MATMUL")
      matmuls.push_back(&n);
    else if (kind == "POINTWISE") {
      const auto mode = strip(n.value("pointwiseMode", std::string()), "CUDNN_POINTWISE_");
      exp = exp || mode == "EXP";
      select = select || mode == "BINARY_SELECT";
      gen_index = gen_index || mode == "GEN_INDEX";
      compares += mode.starts_with("CMP_") ? 1 : 0;
    } else if (kind == "REDUCTION") {
      sum = sum || n.value("reductionOp", std::string()) == "CUDNN_REDUCE_TENSOR_ADD";
    } else if (kind != "RESHAPE") {
      return std::nullopt;
    }
  }
  if (matmuls.size() != 2 || !exp || !sum) return std::nullopt;
  const auto q = uid_of(*matmuls[0], "matA"), kt = uid_of(*matmuls[0], "matB");
  const auto v = uid_of(*matmuls[1], "matB"), o = uid_of(*matmuls[1], "matC");
  for (const auto uid : {q, kt, v, o})
    if (tensors.at(uid).value("isVirtual", false) || tensors.at(uid)["dim"].size() != 4) return std::nullopt;
  std::optional<std::int64_t> stats;
  std::vector<std::int64_t> seq_lens;  // a padding mask's per-batch lengths, q's then kv's
  std::set<std::int64_t> used = {q, kt, v, o};
  for (const auto& [uid, t] : tensors) {
    if (used.count(uid) || t.value("isVirtual", false) || t.value("isByValue", false) ||
        t["dim"].size() != 4 || t["dim"].back() != 1)
      continue;
    if (t["dataType"] == "CUDNN_DATA_INT32" && t["dim"][1] == 1 && t["dim"][2] == 1)
      seq_lens.push_back(uid);
    else
      stats = uid;
  }
  if (!seq_lens.empty() && seq_lens.size() != 2) return std::nullopt;
  // A causal mask is one index comparison; a padding mask two (row < seq_q, col < seq_kv). More
  // is a sliding window, whose bound is a by-value operand bound at execution: not in the log.
  const int mask_compares = compares - (seq_lens.empty() ? 0 : 2);
  if (mask_compares > 1)
    throw std::invalid_argument(
        "attention with a sliding-window mask: its bound is a by-value operand the log does not record");
  // K enters the first matmul transposed (its last two dims swapped in the view): the graph's K
  // is that view with dims and strides swapped back.
  auto k_tensor = tensors.at(kt);
  auto& dims = k_tensor["dim"];
  auto& strides = k_tensor["stride"];
  std::swap(dims[2], dims[3]);
  std::swap(strides[2], strides[3]);
  GraphBuilder b(name, *parse_dtype(data_type_name(tensors.at(q)["dataType"])));
  auto add = [&](const char* role, const json& t) {
    return b.tensor(role, t["dim"].get<std::vector<std::int64_t>>(),
                    t["stride"].get<std::vector<std::int64_t>>(),
                    *parse_dtype(data_type_name(t["dataType"])));
  };
  const auto qu = add("q", tensors.at(q)), ku = add("k", k_tensor), vu = add("v", tensors.at(v)),
             ou = add("o", tensors.at(o));
  const double d = static_cast<double>(tensors.at(q)["dim"][3].get<std::int64_t>());
  // The scale is a by-value operand bound at execution, which the graph does not log: 1/sqrt(d),
  // what frameworks pass by default (the time does not depend on it).
  std::vector<std::int64_t> lens;
  for (const auto uid : seq_lens)
    lens.push_back(add(lens.empty() ? "seq_len_q" : "seq_len_kv", tensors.at(uid)));
  // A padding mask selects too; causal only when no lengths explain the selection.
  b.sdpa(qu, ku, vu, ou, 1.0 / std::sqrt(d), select && gen_index && mask_compares == 1);
  auto out = b.take();
  if (!lens.empty()) {
    auto& node = out["nodes"][0];
    node["inputs"]["seq_len_q_tensor_uid"] = lens[0];
    node["inputs"]["seq_len_kv_tensor_uid"] = lens[1];
    node["attributes"]["padding_mask"] = true;
  }
  if (stats) {
    const auto& t = tensors.at(*stats);
    json st = {{"uid", 100},
               {"name", "stats"},
               {"dims", t["dim"]},
               {"strides", t["stride"]},
               {"data_type", data_type_name(t["dataType"])},
               {"virtual", false}};
    out["tensors"].push_back(st);
    auto& node = out["nodes"][0];
    node["outputs"]["stats_tensor_uid"] = 100;
    node["attributes"]["generate_stats"] = true;
  }
  return out;
}

// Attention backward as frontends build it (PyTorch's SDPA backward on cuDNN, cuDNN's SDPA_BWD
// mode): five matmuls, S = Q.K^T (its scores meet the forward's stats), dP = dO.V^T, dV = P^T.dO,
// dQ = dS.K (often into an fp32 accumulator copied out by an identity), dK = dS^T.Q; O enters the
// softmax-gradient sum with dO. K and V come transposed into the first two (their dims swapped
// back here). Causal when an index comparison selects, as forward.
std::optional<json> attention_backward(const json& graph, const std::map<std::int64_t, json>& tensors,
                                       const std::string& name) {
  std::vector<const json*> matmuls, pointwise;
  int compares = 0;
  for (const auto& n : graph["nodes"]) {
    const auto kind = op_kind(n);
    if (kind == "MATMUL")
      matmuls.push_back(&n);
    else if (kind == "POINTWISE") {
      pointwise.push_back(&n);
      compares +=
          strip(n.value("pointwiseMode", std::string()), "CUDNN_POINTWISE_").starts_with("CMP_") ? 1 : 0;
    } else if (kind != "RESHAPE" && kind != "REDUCTION") {
      return std::nullopt;
    }
  }
  if (matmuls.size() != 5) return std::nullopt;
  auto is_virtual = [&](std::int64_t uid) { return tensors.at(uid).value("isVirtual", false); };
  std::set<std::int64_t> produced;
  for (const auto& n : graph["nodes"])
    for (const char* port : {"Y", "matC"})
      if (const auto uid = optional_uid(n, port)) produced.insert(*uid);
  // The forward's stats: a non-virtual [.., S, 1] input no node produces.
  std::optional<std::int64_t> stats;
  for (const auto& [uid, t] : tensors)
    if (!is_virtual(uid) && !t.value("isByValue", false) && !produced.count(uid) && t["dim"].size() == 4 &&
        t["dim"][3] == 1)
      stats = uid;
  if (!stats) return std::nullopt;
  // The two first-level matmuls read only non-virtual tensors; S's output reaches the stats
  // within a few pointwise steps.
  std::vector<const json*> first;
  for (const auto* m : matmuls)
    if (!is_virtual(uid_of(*m, "matA")) && !is_virtual(uid_of(*m, "matB"))) first.push_back(m);
  if (first.size() != 2) return std::nullopt;
  auto meets_stats = [&](std::int64_t from) {
    std::set<std::int64_t> reach = {from};
    for (int step = 0; step < 4; ++step)
      for (const auto* p : pointwise) {
        const auto x = optional_uid(*p, "X"), b = optional_uid(*p, "B");
        if ((x && reach.count(*x)) || (b && reach.count(*b))) {
          if ((x && *x == *stats) || (b && *b == *stats)) return true;
          reach.insert(uid_of(*p, "Y"));
        }
      }
    return false;
  };
  const bool s_first = meets_stats(uid_of(*first[0], "matC"));
  if (s_first == meets_stats(uid_of(*first[1], "matC"))) return std::nullopt;
  const auto& s_mm = *first[s_first ? 0 : 1];
  const auto& dp_mm = *first[s_first ? 1 : 0];
  const auto q = uid_of(s_mm, "matA"), kt = uid_of(s_mm, "matB");
  const auto d_o = uid_of(dp_mm, "matA"), vt = uid_of(dp_mm, "matB");
  // Outputs: dV = . x dO, dK = . x Q, dQ = the other; through an identity copy when it is one.
  std::optional<std::int64_t> dq, dk, dv;
  for (const auto* m : matmuls) {
    if (m == first[0] || m == first[1]) continue;
    const auto b = uid_of(*m, "matB");
    auto c = uid_of(*m, "matC");
    for (const auto* p : pointwise)
      if (optional_uid(*p, "X") == c &&
          p->value("pointwiseMode", std::string()) == "CUDNN_POINTWISE_IDENTITY")
        c = uid_of(*p, "Y");
    (b == d_o ? dv : b == q ? dk : dq) = c;
  }
  // O: the other operand of the pointwise op that multiplies dO (the softmax-gradient sum).
  std::optional<std::int64_t> o;
  for (const auto* p : pointwise) {
    const auto x = optional_uid(*p, "X"), b = optional_uid(*p, "B");
    if (x == d_o && b && !is_virtual(*b)) o = b;
    if (b == d_o && x && !is_virtual(*x)) o = x;
  }
  if (!dq || !dk || !dv || !o) return std::nullopt;
  for (const auto uid : {q, kt, vt, d_o, *o, *dq, *dk, *dv})
    if (is_virtual(uid) || tensors.at(uid)["dim"].size() != 4) return std::nullopt;
  if (compares > 1)
    throw std::invalid_argument(
        "attention backward with a sliding-window mask: its bound is a by-value operand the log does not "
        "record");
  GraphBuilder b(name, *parse_dtype(data_type_name(tensors.at(q)["dataType"])));
  auto add = [&](const char* role, json t) {
    return b.tensor(role, t["dim"].get<std::vector<std::int64_t>>(),
                    t["stride"].get<std::vector<std::int64_t>>(),
                    *parse_dtype(data_type_name(t["dataType"])));
  };
  auto untransposed = [&](std::int64_t uid) {
    auto t = tensors.at(uid);
    std::swap(t["dim"][2], t["dim"][3]);
    std::swap(t["stride"][2], t["stride"][3]);
    return t;
  };
  const auto qu = add("q", tensors.at(q)), ku = add("k", untransposed(kt)), vu = add("v", untransposed(vt)),
             ou = add("o", tensors.at(*o)), dou = add("do", tensors.at(d_o)),
             su = add("stats", tensors.at(*stats));
  const auto dqu = add("dq", tensors.at(*dq)), dku = add("dk", tensors.at(*dk)),
             dvu = add("dv", tensors.at(*dv));
  const double d = static_cast<double>(tensors.at(q)["dim"][3].get<std::int64_t>());
  b.node("SdpaBackwardAttributes", "sdpa_backward",
         {{"q", qu}, {"k", ku}, {"v", vu}, {"o", ou}, {"do", dou}, {"stats", su}},
         {{"dq", dqu}, {"dk", dku}, {"dv", dvu}},
         {{"causal_mask", compares == 1}, {"attn_scale_value", 1.0 / std::sqrt(d)}, {"padding_mask", false}});
  return b.take();
}

// cuDNN's own attention operations (OPERATION_SDPA_FWD / SDPA_BWD, cuDNN 9.x): one node with the
// ports Q, K, V, O, stats, scale (forward, as cuDNN 9.19 logs it) and dO, dQ, dK, dV (backward),
// SEQ_LEN_Q / SEQ_LEN_KV for padding. The scale is a by-value operand: 1/sqrt(d), as above. A block
// mask (a mask the graph format cannot state) is not imported.
std::optional<json> attention_operation(const json& graph, const std::map<std::int64_t, json>& tensors,
                                        const std::string& name) {
  if (graph["nodes"].size() != 1) return std::nullopt;
  const auto& n = graph["nodes"][0];
  const auto kind = op_kind(n);
  if (kind != "SDPA_FWD" && kind != "SDPA_BWD") return std::nullopt;
  for (const char* mask : {"blockMask", "BLOCK_MASK", "pageTableK", "pageTableV"})
    if (n.contains(mask))
      throw std::invalid_argument(kind + " with a block mask or paged cache has no graph node");
  const bool backward = kind == "SDPA_BWD";
  const auto q = uid_of(n, "Q");
  const auto& qt = tensors.at(q);
  if (qt["dim"].size() != 4) throw std::invalid_argument(kind + " with a Q of rank other than 4");
  GraphBuilder b(name, *parse_dtype(data_type_name(qt["dataType"])));
  std::map<std::int64_t, std::int64_t> uids;  // log uid -> graph uid
  auto add = [&](const char* role, std::int64_t uid) {
    const auto& t = tensors.at(uid);
    return uids[uid] = b.tensor(role, t["dim"].get<std::vector<std::int64_t>>(),
                                t["stride"].get<std::vector<std::int64_t>>(),
                                *parse_dtype(data_type_name(t["dataType"])));
  };
  std::vector<std::pair<std::string, std::int64_t>> in, out;
  for (const auto& [port, role] : std::vector<std::pair<const char*, const char*>>{{"Q", "q"},
                                                                                   {"K", "k"},
                                                                                   {"V", "v"},
                                                                                   {"O", "o"},
                                                                                   {"dO", "do"},
                                                                                   {"stats", "stats"},
                                                                                   {"seqLenQ", "seq_len_q"},
                                                                                   {"seqLenKV", "seq_len_kv"},
                                                                                   {"dQ", "dq"},
                                                                                   {"dK", "dk"},
                                                                                   {"dV", "dv"}}) {
    const auto uid = optional_uid(n, port);
    if (!uid) continue;
    const std::string r = role;
    const bool output = r == "dq" || r == "dk" || r == "dv" || (!backward && (r == "o" || r == "stats"));
    (output ? out : in).emplace_back(r, add(role, *uid));
  }
  const double d = static_cast<double>(qt["dim"][3].get<std::int64_t>());
  const bool padding = optional_uid(n, "seqLenQ") && optional_uid(n, "seqLenKV");
  json attributes = {
      {"causal_mask", false}, {"attn_scale_value", 1.0 / std::sqrt(d)}, {"padding_mask", padding}};
  if (!backward) attributes["generate_stats"] = optional_uid(n, "stats").has_value();
  b.node(backward ? "SdpaBackwardAttributes" : "SdpaAttributes", backward ? "sdpa_backward" : "sdpa", in, out,
         attributes);
  return b.take();
}

}  // namespace

// The shape of the logged JSON that the conversion relies on, checked once (a hostile or newer
// log must give a reason, not a crash).
void check_operation_graph(const json& graph) {
  if (!graph.is_object() || !graph.contains("tensors") || !graph.contains("nodes") ||
      !graph["tensors"].is_array() || !graph["nodes"].is_array())
    throw std::invalid_argument("the operation graph has no tensors or nodes");
  for (const auto& t : graph["tensors"]) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || !t.contains("dataType") ||
        !t["dataType"].is_string() || !t.contains("dim") || !t.contains("stride") || !t["dim"].is_array() ||
        !t["stride"].is_array() || t["dim"].size() != t["stride"].size() || t["dim"].empty())
      throw std::invalid_argument("a tensor without a name, data type, or dims and strides of one rank");
    for (const auto* list : {&t["dim"], &t["stride"]})
      for (const auto& v : *list)
        if (!v.is_number_integer())
          throw std::invalid_argument("a tensor dim or stride that is not an integer");
    for (const char* flag : {"isVirtual", "isByValue"})
      if (t.contains(flag) && !t[flag].is_boolean())
        throw std::invalid_argument(std::string(flag) + " is not a boolean");
  }
  for (const auto& n : graph["nodes"])
    if (!n.is_object() || !n.contains("operation") || !n["operation"].is_string())
      throw std::invalid_argument("a node without an operation");
}

json cudnn_operation_graph_to_hipdnn(const json& graph, const std::string& name) {
  check_operation_graph(graph);
  std::map<std::int64_t, json> tensors;
  for (const auto& t : graph["tensors"]) tensors[std::stoll(t.at("name").get<std::string>())] = t;
  if (auto attention = attention_forward(graph, tensors, name)) return *attention;
  if (auto attention = attention_operation(graph, tensors, name)) return *attention;
  if (auto attention = attention_backward(graph, tensors, name)) return *attention;
  json nodes = json::array();
  std::size_t index = 0;
  for (const auto& n : graph["nodes"]) nodes.push_back(convert_node(n, index++, tensors));
  json out_tensors = json::array();
  std::string io_type;
  for (const auto& [uid, t] : tensors) {
    json tensor = {{"uid", uid},
                   {"name", fmt::format("t{}", uid)},
                   {"dims", t.at("dim")},
                   {"strides", t.at("stride")},
                   {"data_type", data_type_name(t.at("dataType"))},
                   {"virtual", t.value("isVirtual", false)}};
    if (t.value("isByValue", false)) {
      // A by-value scalar (a norm's epsilon, a momentum): its value is bound at execution and not
      // logged; 1e-5 is the frameworks' default epsilon and changes no time.
      tensor["data_type"] = "double";
      tensor["value_type"] = "Float64Value";
      tensor["value"] = 1e-5;
    } else if (io_type.empty() && !tensor["virtual"].get<bool>()) {
      io_type = tensor["data_type"];
    }
    out_tensors.push_back(tensor);
  }
  return {{"name", name},
          {"io_data_type", io_type.empty() ? "float" : io_type},
          {"compute_data_type", "float"},
          {"intermediate_data_type", "float"},
          {"tensors", out_tensors},
          {"nodes", nodes}};
}

namespace {

// "CONVOLUTION_FORWARD -> POINTWISE": the graph's operations, for what did not map.
std::string operations_of(const json& graph) {
  std::string ops;
  if (const auto it = graph.find("nodes"); it != graph.end() && it->is_array())
    for (const auto& n : *it) {
      const bool named = n.is_object() && n.contains("operation") && n["operation"].is_string();
      ops += (ops.empty() ? "" : " -> ") + (named ? op_kind(n) : std::string("?"));
    }
  return ops.empty() ? "operation graph" : ops;
}

// `apiLog: type=json; val={...};` of a *GraphVisualize call: the JSON text.
std::optional<std::string> api_log_json(const CudnnLogCall& call) {
  auto text = call.field("apiLog");
  if (!text) return std::nullopt;
  const auto at = text->find("val=");
  if (text->find("type=json") == std::string::npos || at == std::string::npos) return std::nullopt;
  auto body = text->substr(at + 4);
  if (!body.empty() && body.back() == ';') body.pop_back();
  return body;
}

// The first `operationGraph` object anywhere in the document (an execution's log may wrap it).
const json* find_operation_graph(const json& doc, int depth = 0) {
  // A few levels: the log nests the graph at most inside a plan; hostile nesting is not searched.
  if (!doc.is_object() || depth > 4) return nullptr;
  if (const auto it = doc.find("operationGraph"); it != doc.end() && it->is_object()) return &*it;
  for (const auto& [key, value] : doc.items())
    if (const auto* found = find_operation_graph(value, depth + 1)) return found;
  return nullptr;
}

// A legacy batch-norm call's tensor descriptor (`xDesc: type=cudnnTensorDescriptor_t:` and its
// dataType, dimA and strideA lines below it).
struct LegacyTensor {
  std::string type;
  std::vector<std::int64_t> dims, strides;
};

std::vector<std::int64_t> int_list(const std::string& value) {
  std::vector<std::int64_t> out;
  for (const auto& v : json::parse(value)) out.push_back(v.get<std::int64_t>());
  return out;
}

std::optional<LegacyTensor> legacy_tensor(const CudnnLogCall& call, std::string_view name) {
  for (std::size_t i = 0; i < call.lines.size(); ++i) {
    const auto& l = call.lines[i];
    const auto at = l.find_first_not_of(' ');
    if (at == std::string::npos || l.compare(at, name.size(), name) != 0 || l.size() <= at + name.size() ||
        l[at + name.size()] != ':')
      continue;
    if (l.find("cudnnTensorDescriptor_t:") == std::string::npos) return std::nullopt;  // NULL_PTR
    LegacyTensor t;
    for (std::size_t j = i + 1; j < call.lines.size(); ++j) {
      const auto& d = call.lines[j];
      if (d.find_first_not_of(' ') <= at) break;  // back at the parameter's depth
      const auto v = d.find("val=");
      if (v == std::string::npos) continue;
      auto value = d.substr(v + 4);
      if (!value.empty() && value.back() == ';') value.pop_back();
      if (d.find("dataType:") != std::string::npos) t.type = value.substr(0, value.find(' '));
      if (d.find("dimA:") != std::string::npos) t.dims = int_list(value);
      if (d.find("strideA:") != std::string::npos) t.strides = int_list(value);
    }
    if (t.dims.empty() || t.dims.size() != t.strides.size()) return std::nullopt;
    return t;
  }
  return std::nullopt;
}

// PyTorch's batch norm runs through cuDNN's legacy API: the forward-training, inference and
// backward calls map to the graph's batch-norm nodes (fp32 statistics of [1, C, 1, 1]).
std::optional<json> legacy_batchnorm(const CudnnLogCall& call) {
  const auto& f = call.function;
  const bool training = f.starts_with("cudnnBatchNormalizationForwardTraining");
  const bool inference = f == "cudnnBatchNormalizationForwardInference";
  const bool backward = f.starts_with("cudnnBatchNormalizationBackward");
  if (!training && !inference && !backward) return std::nullopt;
  const auto x = legacy_tensor(call, "xDesc");
  const auto stats = legacy_tensor(call, backward ? "dBnScaleBiasDesc" : "bnScaleBiasMeanVarDesc");
  if (!x || !stats) throw std::invalid_argument(f + ": its xDesc or scale/bias descriptor is missing");
  if (x->dims.size() < 3) throw std::invalid_argument(f + ": xDesc of fewer than 3 dims");
  const auto io = *parse_dtype(data_type_name(x->type));
  GraphBuilder b(f, io);
  const auto channels = x->dims.size() > 1 ? x->dims[1] : 1;
  std::vector<std::int64_t> per_channel(x->dims.size(), 1);
  per_channel[1] = channels;
  auto stat = [&](const char* role) { return b.tensor(role, per_channel, {}, DataType::f32); };
  const auto xu = b.tensor("x", x->dims, x->strides);
  const double eps = [&] {
    const auto v = call.value("epsilon");
    return v ? std::stod(*v) : 1e-5;
  }();
  if (inference) {
    const auto mean = stat("mean"), var = stat("inv_variance"), scale = stat("scale"), bias = stat("bias");
    const auto y = b.tensor("y", x->dims, x->strides);
    b.batchnorm_inference(xu, mean, var, scale, bias, y);
  } else if (training) {
    const auto scale = stat("scale"), bias = stat("bias");
    const auto e = b.scalar("epsilon", eps);
    const auto y = b.tensor("y", x->dims, x->strides);
    const auto mean = stat("mean"), inv = stat("inv_variance");
    b.node("BatchnormAttributes", "batchnorm", {{"x", xu}, {"scale", scale}, {"bias", bias}, {"epsilon", e}},
           {{"y", y}, {"mean", mean}, {"inv_variance", inv}});
  } else {
    const auto dy = b.tensor("dy", x->dims, x->strides);
    const auto mean = stat("mean"), inv = stat("inv_variance"), scale = stat("scale");
    const auto dx = b.tensor("dx", x->dims, x->strides);
    const auto ds = stat("dscale"), db = stat("dbias");
    b.node("BatchnormBackwardAttributes", "batchnorm_backward",
           {{"dy", dy}, {"x", xu}, {"mean", mean}, {"inv_variance", inv}, {"scale", scale}},
           {{"dx", dx}, {"dscale", ds}, {"dbias", db}});
  }
  return b.take();
}

// What a legacy batch-norm call ran, named as the cuDNN provider's legacy engine and its mode knob
// ("legacy_bn mode=persistent"), to hold dnnbench's row of the same plan against it.
std::string legacy_batchnorm_ran(const CudnnLogCall& call) {
  const auto mode = call.value("mode").value_or("");
  const auto name = mode.substr(0, mode.find(' '));
  if (name == "CUDNN_BATCHNORM_SPATIAL_PERSISTENT") return "legacy_bn mode=persistent";
  if (name == "CUDNN_BATCHNORM_SPATIAL") return "legacy_bn mode=spatial";
  return "legacy_bn mode=" + (name.empty() ? std::string("?") : name);
}

// The lines nested under the first parameter line starting with `header` (trimmed, one per line):
// an operation graph as the log prints a descriptor, the same at its finalize and inside every
// execution's plan. Empty when absent.
std::string nested_text(const CudnnLogCall& call, std::string_view header) {
  std::string out;
  std::size_t depth = std::string::npos;
  for (const auto& l : call.lines) {
    const auto indent = l.find_first_not_of(' ');
    if (indent == std::string::npos) continue;
    if (depth == std::string::npos) {
      if (std::string_view(l).substr(indent).starts_with(header)) depth = indent;
      continue;
    }
    if (indent <= depth) break;
    out.append(l, indent, std::string::npos);
    out += '\n';
  }
  return out;
}

// Reads the calls and keeps, per distinct graph, what became of it and how often it ran.
class CudnnLogImporter {
 public:
  explicit CudnnLogImporter(std::string file) : file_(std::move(file)) {}

  void add(CudnnLogCall&& call) {
    ++calls_;
    if (!call.complete) {
      // Cut short: the log was truncated mid-call, or another thread's block began inside it.
      if (call.function.ends_with("GraphVisualize") || call.function.starts_with("cudnnBatchNormalization"))
        skipped(call,
                "cut short: the block has no Process= line (a truncated log or another thread's call "
                "interleaved into it)");
      return;
    }
    if (call.severity == 'E') {
      // The error block that follows a failed call: that call ran nothing.
      if (last_ && last_->thread == call.thread && last_->function == call.function) {
        auto& entry = entries_[last_->key];
        (last_->execution ? entry.executions : entry.finalizations) -= 1;
      }
      last_.reset();
      return;
    }
    // The finalize or execute call that a *GraphVisualize block belongs to logs its status after
    // it: a graph cuDNN refused (or a plan that failed) ran nothing.
    if (last_ && last_->thread == call.thread && last_->function.starts_with(call.function) &&
        call.function != last_->function) {
      if (const auto status = call.value("status"); status && !status->starts_with("CUDNN_STATUS_SUCCESS")) {
        auto& entry = entries_[last_->key];
        (last_->execution ? entry.executions : entry.finalizations) -= 1;
      }
      last_.reset();
      return;
    }
    // The operation graph a finalize prints, to know it again inside the plans executions print
    // (cudnnBackendExecute logs its plan's graph as descriptors, not as JSON).
    if (call.function == "cudnnBackendFinalize") {
      auto text = nested_text(call, "descriptor: type=CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:");
      if (!text.empty()) pending_graph_[call.thread] = std::move(text);
      return;
    }
    if (call.function == "cudnnBackendExecute" && call.field("executionPlan")) return plan_execution(call);
    const bool finalize = call.function == "cudnnBackendFinalizeGraphVisualize";
    const bool execute = call.function == "cudnnBackendExecuteGraphVisualize";
    if (finalize || execute) return graph_call(call, execute);
    last_.reset();
    try {
      if (auto graph = legacy_batchnorm(call)) {
        const auto key = graph->dump();
        auto& entry = entry_for(key, call);
        if (entry.graph.is_null() && entry.not_imported.empty()) {
          entry.graph = std::move(*graph);
          // Numbered as the graph API's are: a step calls one function for problems of many shapes,
          // and a report (or a comparison keyed by name) must tell them apart.
          entry.graph["name"] = fmt::format("{}_{}", call.function, entries_.size());
        }
        ++entry.executions;
        add_engine(entry, legacy_batchnorm_ran(call));
        last_ = Last{key, call.thread, call.function, true};
      }
    } catch (const std::exception& e) {
      skipped(call, e.what());
    }
  }

  ImportResult finish(const LogReadEnd& end) {
    ImportResult result;
    for (auto& [key, e] : entries_) {
      const auto count = e.executions > 0 ? e.executions : e.finalizations;
      if (count <= 0) continue;  // every call of it failed
      auto how = e.executions > 0 ? fmt::format("{} executions", e.executions)
                                  : fmt::format("{} finalizations, no execution logged", e.finalizations);
      for (std::size_t k = 0; k < e.engines.size(); ++k) how += (k == 0 ? "; ran " : ", ") + e.engines[k];
      if (!e.not_imported.empty()) {
        result.not_imported.push_back({e.source, e.op, fmt::format("{} ({})", e.not_imported, how)});
        continue;
      }
      ImportedGraph g;
      g.graph = std::move(e.graph);
      g.source = fmt::format("{} ({}; {})", e.source, e.where, how);
      g.count = count;
      result.graphs.push_back(std::move(g));
    }
    if (unmatched_executions_ > 0)
      result.not_imported.push_back(
          {fmt::format("{}:{}", file_, end.lines), "cudnnBackendExecute",
           fmt::format("{} executions of plans whose graph's finalize is not in the log "
                       "(a log begun mid-run): not counted",
                       unmatched_executions_)});
    for (auto& n : problems_) result.not_imported.push_back(std::move(n));
    if (!end.problem.empty())
      result.not_imported.push_back({fmt::format("{}:{}", file_, end.lines), "log", end.problem});
    return result;
  }

  std::size_t calls() const { return calls_; }

 private:
  struct Entry {
    json graph;                // the hipDNN graph, null when it does not map
    std::string op;            // what did not map
    std::string not_imported;  // why; empty when it maps
    std::string source;        // file:line of the first call
    std::string where;         // process, thread, handle
    std::int64_t finalizations = 0, executions = 0;
    std::vector<std::string> engines;  // the engines its executions ran (a few)
  };
  struct Converted {
    json graph;  // null when it does not map
    std::string key, op, not_imported;
  };
  struct Last {
    std::string key, thread, function;
    bool execution = false;
  };

  Entry& entry_for(const std::string& key, const CudnnLogCall& call) {
    auto [it, fresh] = entries_.try_emplace(key);
    if (fresh) {
      it->second.source = fmt::format("{}:{}", file_, call.line);
      it->second.where = fmt::format("process {}, thread {}, handle {}", or_none(call.process),
                                     or_none(call.thread), or_none(call.handle));
    }
    return it->second;
  }

  static std::string or_none(const std::string& s) { return s.empty() ? "none" : s; }

  void graph_call(const CudnnLogCall& call, bool execution) {
    const auto text = api_log_json(call);
    if (!text) return skipped(call, "its apiLog holds no JSON graph");
    json doc = json::parse(*text, nullptr, false);
    if (doc.is_discarded()) return skipped(call, "its graph JSON does not parse");
    const auto version = doc.is_object() && doc.contains("schemaVersion") ? doc["schemaVersion"] : json();
    if (!version.is_number_integer() || version.get<std::int64_t>() != kSchemaVersion)
      return skipped(call, fmt::format("graph schema version {} (this dnnbench reads version {})",
                                       version.dump(), kSchemaVersion));
    const auto* graph = find_operation_graph(doc);
    if (!graph) return skipped(call, "its graph JSON has no operationGraph");
    // One graph, one entry: cuDNN logs a graph's tensors a little differently at finalize and at
    // execution (and names a mode it found only then), so entries are keyed by the graph they
    // convert to; a raw graph is converted once.
    json raw = *graph;
    raw.erase("finalizeMode");
    const auto raw_key = raw.dump();
    auto known = keys_.find(raw_key);
    if (known == keys_.end()) {
      Converted c;
      try {
        c.graph = cudnn_operation_graph_to_hipdnn(*graph, "cudnn_graph");
        c.key = c.graph.dump();
      } catch (const std::exception& e) {
        c.not_imported = e.what();
        c.op = operations_of(*graph);
        c.key = "unmapped " + raw_key;
      }
      known = keys_.emplace(raw_key, std::move(c)).first;
    }
    const auto& converted = known->second;
    const auto key = converted.key;
    auto& entry = entry_for(key, call);
    if (entry.graph.is_null() && entry.not_imported.empty()) {
      entry.graph = converted.graph;
      if (!entry.graph.is_null()) entry.graph["name"] = fmt::format("cudnn_graph_{}", entries_.size());
      entry.not_imported = converted.not_imported;
      entry.op = converted.op;
    }
    // The engine an execution ran (cuDNN adds it to the executed graph's JSON): the program's own
    // pick, to hold dnnbench's heuristic pick and the oracle's winner against.
    if (execution && doc.contains("engine") && doc["engine"].is_object()) {
      const auto& e = doc["engine"];
      std::string ran = e.contains("engineId") ? "eng" + e["engineId"].dump() : "engine ?";
      if (e.contains("knobChoices") && e["knobChoices"].is_object())
        for (const auto& [knob, value] : e["knobChoices"].items())
          ran += " " + strip(knob, "CUDNN_KNOB_TYPE_") + "=" + value.dump();
      add_engine(entry, ran);
    }
    if (!execution) {
      if (const auto pending = pending_graph_.find(call.thread); pending != pending_graph_.end()) {
        if (nested_keys_.size() < kMaxDistinct) nested_keys_.emplace(std::move(pending->second), key);
        pending_graph_.erase(pending);
      }
    }
    // An execution whose plan block (just before, same thread) already counted it is not counted
    // again; its JSON only adds the engine.
    const bool after_plan =
        execution && last_ && last_->thread == call.thread && last_->function == kPlanExecution;
    const bool counted = after_plan && last_->key == key;
    if (after_plan && last_->key.empty()) --unmatched_executions_;
    if (!counted) (execution ? entry.executions : entry.finalizations) += 1;
    last_ = Last{key, call.thread, call.function, execution};
  }

  // cudnnBackendExecute with its plan: the plan's graph, printed as descriptors, is matched to the
  // finalize that printed it the same way; the engine is the plan's.
  void plan_execution(const CudnnLogCall& call) {
    last_.reset();
    const auto text = nested_text(call, "opGraph: type=CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:");
    const auto known = nested_keys_.find(text);
    if (text.empty() || known == nested_keys_.end()) {
      // Counted by the executed graph's JSON if one follows (frontend graphs print their graph
      // differently at finalize); reported otherwise.
      ++unmatched_executions_;
      last_ = Last{"", call.thread, std::string(kPlanExecution), true};
      return;
    }
    auto& entry = entries_[known->second];
    ++entry.executions;
    if (const auto id = call.value("engine_id")) {
      const auto ran = "eng" + *id;
      add_engine(entry, ran);
    }
    last_ = Last{known->second, call.thread, std::string(kPlanExecution), true};
  }

  // Records the engine an execution ran; "eng9 KERNEL_CFG=7" replaces a bare "eng9".
  static void add_engine(Entry& entry, const std::string& ran) {
    for (auto& e : entry.engines) {
      if (e == ran || e.starts_with(ran + " ")) return;
      if (ran.starts_with(e + " ")) {
        e = ran;
        return;
      }
    }
    if (entry.engines.size() < 4) entry.engines.push_back(ran);
  }

  void skipped(const CudnnLogCall& call, const std::string& why) {
    // Bounded: a log of millions of identical problems must not hold millions of messages.
    if (problems_.size() < 1000)
      problems_.push_back({fmt::format("{}:{}", file_, call.line), call.function, why});
  }

  std::string file_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, Converted> keys_;             // the raw graph JSON -> its conversion
  std::map<std::string, std::string> pending_graph_;  // thread -> the graph its last finalize printed
  std::map<std::string, std::string> nested_keys_;    // a graph as printed -> its entry's key
  std::size_t unmatched_executions_ = 0;
  std::vector<NotImported> problems_;
  std::optional<Last> last_;
  std::size_t calls_ = 0;
};

ImportResult import_lines(
    const std::string& file,
    const std::function<LogReadEnd(const std::function<void(std::string_view, std::size_t)>&)>& read) {
  CudnnLogImporter importer(file);
  CudnnLogCallReader reader([&](CudnnLogCall&& call) { importer.add(std::move(call)); });
  const auto end = read([&](std::string_view line, std::size_t number) { reader.add(line, number); });
  reader.finish();
  return importer.finish(end);
}

}  // namespace

bool is_cudnn_api_log_line(std::string_view line) {
  return is_cudnn_log_header(line);
}

ImportResult import_cudnn_api_log_file(const std::filesystem::path& path) {
  return import_lines(path.string(), [&](const auto& line) { return for_each_log_line(path, line); });
}

ImportResult import_cudnn_api_log_text(const std::string& text, const std::string& file) {
  return import_lines(file, [&](const auto& line) {
    LogReadEnd end;
    std::size_t from = 0;
    while (from < text.size()) {
      auto to = text.find('\n', from);
      if (to == std::string::npos) to = text.size();
      std::string_view l(text.data() + from, to - from);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      line(l, ++end.lines);
      from = to + 1;
    }
    end.bytes = text.size();
    return end;
  });
}

}  // namespace dnnbench
