#include "graph/reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "graph/errors.hpp"
#include "graph/ops/common.hpp"
#include "graph/ops/op_rules.hpp"
#include "tensor/dense.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

constexpr std::string_view kPortSuffix = "_tensor_uid";

// hipDNN graphs nest 5 levels deep (graph, nodes, node, inputs, a list of uids). nlohmann's parser
// keeps its own stack, but copying, comparing and printing a value recurse once per level (the
// graph loader prints every graph to find duplicates), so a file of 100,000 nested arrays would
// overflow the thread's stack; such files are refused before they are parsed.
constexpr int kMaxNesting = 64;

// "line 3, column 7" of the character at `offset`.
std::string line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k)
    if (text[k] == '\n') {
      ++line;
      line_start = k + 1;
    }
  return "line " + std::to_string(line) + ", column " + std::to_string(offset - line_start + 1);
}

// "invalid JSON at line 3, column 7: <what the parser says>" from a parse error.
std::string describe_parse_error(std::string_view text, const json::parse_error& e) {
  // e.byte counts the characters read, the offending one included.
  const std::size_t read = std::min<std::size_t>(e.byte, text.size());
  // nlohmann's text is "[json.exception.parse_error.101] parse error at line 1, column 2: <detail>".
  std::string detail = e.what();
  if (const auto column_at = detail.find("column "); column_at != std::string::npos)
    if (const auto colon = detail.find(": ", column_at); colon != std::string::npos)
      detail = detail.substr(colon + 2);
  return "invalid JSON at " + line_column(text, read == 0 ? 0 : read - 1) + ": " + detail;
}

// Refuses arrays and objects nested deeper than kMaxNesting (strings are skipped, so brackets
// inside names do not count). Malformed text is left to the parser.
void check_nesting(std::string_view text, const std::string& source) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (in_string) {
      if (c == '\\')
        ++k;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxNesting)
        throw InputError(source, "",
                         "invalid JSON at " + line_column(text, k) +
                             ": arrays and objects nested more than " + std::to_string(kMaxNesting) +
                             " levels deep; a graph file nests about 5");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// The keys a tensor and a node may have (reference/GRAPH-FORMAT.md). Top-level keys are not
// checked: the format lets files carry their own (`metadata`, ...).
constexpr std::string_view kTensorKeys[] = {"uid",       "name",    "dims",       "strides",
                                            "data_type", "virtual", "value_type", "value"};
constexpr std::string_view kNodeKeys[] = {"name",    "type",       "compute_data_type", "inputs",
                                          "outputs", "parameters", "attributes"};

std::string quoted_list(std::span<const std::string_view> names) {
  std::string list;
  for (const auto name : names) list += (list.empty() ? "`" : ", `") + std::string(name) + "`";
  return list.empty() ? "none" : list;
}

// A key outside `known` is a load error: a misspelt setting must never run as its default
// (`conv_mod` would run cross-correlation, `strdes` a packed layout).
void check_known_keys(const json& object, std::span<const std::string_view> known, const std::string& file,
                      const std::string& path, std::string_view what, bool skip_ports = false) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (skip_ports && key.ends_with(kPortSuffix)) continue;
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const auto guess = closest_match(key, known);
    throw InputError(file, join_path(path, key),
                     "unknown key `" + key + "` in " + std::string(what) +
                         (guess.empty() ? "" : "; did you mean `" + guess + "`?") +
                         " (known keys: " + quoted_list(known) + ")");
  }
}

DataType read_dtype(const json& value, const std::string& file, const std::string& path) {
  const std::string name = json_string(value, file, path);
  if (const auto type = parse_dtype(name)) return *type;
  throw InputError(
      file, path,
      "unknown data type \"" + name +
          "\"; expected one of float, half, bfloat16, double, int8, uint8, int32, int64, boolean, "
          "fp8_e4m3, fp8_e5m2, unset");
}

// Scalar kinds hipDNN writes for by-value tensors ("value_type": "Float64Value").
constexpr std::string_view kValueTypes[] = {"Float64Value", "Float32Value", "Float16Value", "BFloat16Value",
                                            "HalfValue",    "Int64Value",   "Int32Value",   "Int8Value",
                                            "UInt8Value",   "BoolValue"};

void read_scalar_value(const json& tj, TensorDesc& t, const std::string& file, const std::string& path) {
  const json* value_type = find_non_null(tj, "value_type");
  const json* value = find_non_null(tj, "value");
  if (!value_type && !value) return;
  if (value_type) {
    const std::string vpath = join_path(path, "value_type");
    const std::string name = json_string(*value_type, file, vpath);
    if (std::find(std::begin(kValueTypes), std::end(kValueTypes), name) == std::end(kValueTypes)) {
      std::string valid;
      for (auto v : kValueTypes) valid += (valid.empty() ? "" : ", ") + std::string(v);
      throw InputError(file, vpath, "unknown value_type \"" + name + "\"; expected one of " + valid);
    }
    if (!value)
      throw InputError(file, join_path(path, "value"),
                       "missing required key `value` (the scalar of value_type " + name + ")");
  }
  const std::string vpath = join_path(path, "value");
  if (value->is_boolean())
    t.scalar_value = value->get<bool>() ? 1.0 : 0.0;
  else
    t.scalar_value = json_number(*value, file, vpath);
}

TensorDesc read_tensor(const json& tj, const Graph& graph, const std::string& file, const std::string& path) {
  expect_object(tj, file, path);
  check_known_keys(tj, kTensorKeys, file, path, "a tensor");
  TensorDesc t;
  t.uid = json_int(require_member(tj, "uid", file, path, "an integer, unique in the graph"), file,
                   join_path(path, "uid"));
  t.name = json_string(require_member(tj, "name", file, path, "a string"), file, join_path(path, "name"));
  if (const json* v = find_non_null(tj, "virtual"))
    t.is_virtual = json_bool(*v, file, join_path(path, "virtual"));
  read_scalar_value(tj, t, file, path);
  // A by-value scalar may leave out its shape: it is one element.
  const json* dims = find_non_null(tj, "dims");
  if (!dims && t.is_by_value())
    t.dims = {1};
  else
    t.dims =
        json_int_array(require_member(tj, "dims", file, path, "an array of integers, e.g. [8, 64, 28, 28]"),
                       file, join_path(path, "dims"));
  // Missing strides mean a packed C-order (row-major) layout.
  if (const json* strides = find_non_null(tj, "strides"))
    t.strides = json_int_array(*strides, file, join_path(path, "strides"));
  else if (std::all_of(t.dims.begin(), t.dims.end(), [](std::int64_t d) { return d > 0; }))
    t.strides = c_order_strides(t.dims);
  else
    t.strides.assign(t.dims.size(), 1);  // validation rejects the dims first
  // A tensor without its own type takes the graph's I/O type (virtual ones: resolved by
  // validation to the intermediate type).
  if (const json* dtype = find_non_null(tj, "data_type"))
    t.dtype = read_dtype(*dtype, file, join_path(path, "data_type"));
  else
    t.dtype = t.is_virtual ? DataType::unset : graph.io_type;
  return t;
}

// Ports of `inputs` / `outputs`: every key ending in `_tensor_uid`; other keys (pointwise
// settings) are left to the op's parser.
std::vector<Port> read_ports(const json& object, const std::string& file, const std::string& path) {
  std::vector<Port> ports;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key.size() < kPortSuffix.size() ||
        key.compare(key.size() - kPortSuffix.size(), kPortSuffix.size(), kPortSuffix) != 0)
      continue;
    const std::string role = key.substr(0, key.size() - kPortSuffix.size());
    const std::string key_path = join_path(path, key);
    const json& value = it.value();
    if (value.is_null()) continue;  // role absent
    if (value.is_array()) {
      for (std::size_t k = 0; k < value.size(); ++k) {
        if (value[k].is_null()) continue;
        ports.push_back(
            {role + "[" + std::to_string(k) + "]", json_int(value[k], file, index_path(key_path, k))});
      }
      continue;
    }
    if (!value.is_number_integer())
      throw InputError(
          file, key_path,
          "expected a tensor uid (an integer), null or a list of uids, got " + describe_json(value));
    ports.push_back({role, json_int(value, file, key_path)});
  }
  return ports;
}

// Picks which of `parameters` / `attributes` holds the node's settings ("" when neither).
std::string read_settings_key(const json& nj, const std::string& file, const std::string& path) {
  const json* parameters = find_non_null(nj, "parameters");
  const json* attributes = find_non_null(nj, "attributes");
  if (parameters) expect_object(*parameters, file, join_path(path, "parameters"));
  if (attributes) expect_object(*attributes, file, join_path(path, "attributes"));
  if (parameters && attributes && !parameters->empty() && !attributes->empty())
    throw InputError(file, join_path(path, "attributes"),
                     "node has both `parameters` and `attributes`; expected its settings under one of them");
  if (parameters && (!parameters->empty() || !attributes || attributes->empty())) return "parameters";
  return attributes ? "attributes" : "";
}

Node read_node(const json& nj, const Graph& graph, const std::string& file, const std::string& path,
               std::size_t index) {
  expect_object(nj, file, path);
  check_known_keys(nj, kNodeKeys, file, path, "a node");
  Node node;
  node.type = json_string(require_member(nj, "type", file, path, "the op, e.g. \"ConvolutionFwdAttributes\""),
                          file, join_path(path, "type"));
  const OpRules* rules = find_op_rules(node.type);
  if (!rules && !is_hipdnn_node_type(node.type)) {
    const auto guess = closest_match(node.type, hipdnn_node_types());
    throw InputError(file, join_path(path, "type"),
                     "unknown node type \"" + node.type + "\"; " +
                         (guess.empty() ? "expected a hipDNN node type: " + quoted_list(hipdnn_node_types())
                                        : "did you mean \"" + guess + "\"?"));
  }
  if (const json* name = find_non_null(nj, "name"))
    node.name = json_string(*name, file, join_path(path, "name"));
  else
    node.name = node.type + "_" + std::to_string(index);
  node.compute_type = graph.compute_type;
  if (const json* compute = find_non_null(nj, "compute_data_type")) {
    const DataType type = read_dtype(*compute, file, join_path(path, "compute_data_type"));
    if (type != DataType::unset) node.compute_type = type;
  }
  // Pointers, not references, to members found by require_member (here and below): g++ 13's
  // -Wdangling-reference flags a reference bound to a returned reference whenever an argument
  // is a temporary (the key's string_view), though the result refers into the document.
  const json* inputs = &require_member(nj, "inputs", file, path, "an object of role -> tensor uid");
  expect_object(*inputs, file, join_path(path, "inputs"));
  const json* outputs = &require_member(nj, "outputs", file, path, "an object of role -> tensor uid");
  expect_object(*outputs, file, join_path(path, "outputs"));
  node.inputs = read_ports(*inputs, file, join_path(path, "inputs"));
  node.outputs = read_ports(*outputs, file, join_path(path, "outputs"));
  // Settings of ops this tool does not execute are never read, so they are not checked either.
  if (rules) {
    node.settings_key = read_settings_key(nj, file, path);
    const std::string what = "the settings of " + node.type;
    if (!node.settings_key.empty())
      check_known_keys(nj.at(node.settings_key), rules->settings, file, join_path(path, node.settings_key),
                       what);
    // Pointwise settings sit inline in `inputs`; every other op has only ports there.
    check_known_keys(*inputs,
                     rules->kind == OpKind::pointwise ? rules->settings : std::span<const std::string_view>{},
                     file, join_path(path, "inputs"),
                     rules->kind == OpKind::pointwise ? what + " (inline in inputs)"
                                                      : "inputs (roles end in `_tensor_uid`)",
                     /*skip_ports=*/true);
    check_known_keys(*outputs, {}, file, join_path(path, "outputs"), "outputs (roles end in `_tensor_uid`)",
                     /*skip_ports=*/true);
    node.kind = rules->kind;
    rules->parse(nj, node, NodeContext{file, path});
  }
  return node;
}

}  // namespace

Graph parse_graph_json(std::string_view text, const std::string& source) {
  if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); }))
    throw InputError(source, "", "the file is empty; expected a JSON object describing a graph");
  check_nesting(text, source);
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    throw InputError(source, "", describe_parse_error(text, e));
  } catch (const json::exception& e) {
    // Not a parse_error: a number too large for a double (1e999) is json::out_of_range, which
    // names no position; its text is "[json.exception.out_of_range.406] number overflow ...".
    std::string detail = e.what();
    if (const auto bracket = detail.find("] "); bracket != std::string::npos)
      detail = detail.substr(bracket + 2);
    throw InputError(source, "", "invalid JSON: " + detail);
  }
  if (!doc.is_object())
    throw InputError(source, "", "expected a JSON object at the top level, got " + describe_json(doc));

  Graph graph;
  graph.name =
      json_string(require_member(doc, "name", source, "", "the graph name, a string"), source, "name");
  const auto optional_dtype = [&](std::string_view key, DataType fallback) {
    const json* value = find_non_null(doc, key);
    const DataType type = value ? read_dtype(*value, source, std::string(key)) : DataType::unset;
    return type == DataType::unset ? fallback : type;
  };
  graph.io_type = optional_dtype("io_data_type", DataType::unset);
  // fp32 accumulation is every library's default when a file does not say.
  graph.compute_type = optional_dtype("compute_data_type", DataType::f32);
  graph.intermediate_type = optional_dtype("intermediate_data_type", graph.compute_type);

  const json* tensors = &require_member(doc, "tensors", source, "", "an array of tensor objects");
  if (!tensors->is_array())
    throw InputError(source, "tensors",
                     "expected an array of tensor objects, got " + describe_json(*tensors));
  for (std::size_t k = 0; k < tensors->size(); ++k)
    graph.tensors.push_back(read_tensor((*tensors)[k], graph, source, index_path("tensors", k)));

  const json* nodes = &require_member(doc, "nodes", source, "", "an array of node objects");
  if (!nodes->is_array())
    throw InputError(source, "nodes", "expected an array of node objects, got " + describe_json(*nodes));
  for (std::size_t k = 0; k < nodes->size(); ++k)
    graph.nodes.push_back(read_node((*nodes)[k], graph, source, index_path("nodes", k), k));
  return graph;
}

Graph read_graph_file(const std::filesystem::path& path) {
  const std::string source = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(source, "", "is a directory; expected a graph JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(source, "", std::string("cannot open the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(source, "", std::string("cannot read the file: ") + std::strerror(errno));
  Graph graph = parse_graph_json(text.str(), source);
  graph.source_path = source;
  return graph;
}

}  // namespace dnnbench
