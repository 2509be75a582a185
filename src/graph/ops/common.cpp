#include "graph/ops/common.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "graph/errors.hpp"

namespace dnnbench {

using nlohmann::json;

std::string join_path(const std::string& base, std::string_view key) {
  if (base.empty()) return std::string(key);
  return base + "." + std::string(key);
}

std::string index_path(const std::string& base, std::size_t index) {
  return base + "[" + std::to_string(index) + "]";
}

std::string describe_json(const json& value) {
  // Long values are cut so that one message stays one readable line.
  constexpr std::size_t kMaxShown = 40;
  auto shorten = [](std::string text) {
    if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
    return text;
  };
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return std::string("boolean ") + (value.get<bool>() ? "true" : "false");
    case json::value_t::string:
      return "string " + shorten(value.dump());
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "number " + shorten(value.dump());
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "a " + std::string(value.type_name());
  }
}

namespace {

[[noreturn]] void type_error(const json& value, const std::string& file, const std::string& path,
                             std::string_view expected) {
  throw InputError(file, path, "expected " + std::string(expected) + ", got " + describe_json(value));
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

std::int64_t json_int(const json& value, const std::string& file, const std::string& path) {
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw InputError(file, path, "integer " + value.dump() + " does not fit in 64 bits (signed)");
    return static_cast<std::int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<std::int64_t>();
  type_error(value, file, path, "an integer");
}

double json_number(const json& value, const std::string& file, const std::string& path) {
  if (value.is_number()) return value.get<double>();
  type_error(value, file, path, "a number");
}

std::string json_string(const json& value, const std::string& file, const std::string& path) {
  if (value.is_string()) return value.get<std::string>();
  type_error(value, file, path, "a string");
}

bool json_bool(const json& value, const std::string& file, const std::string& path) {
  if (value.is_boolean()) return value.get<bool>();
  type_error(value, file, path, "a boolean (true or false)");
}

std::vector<std::int64_t> json_int_array(const json& value, const std::string& file,
                                         const std::string& path) {
  if (!value.is_array()) type_error(value, file, path, "an array of integers");
  std::vector<std::int64_t> out;
  out.reserve(value.size());
  for (std::size_t k = 0; k < value.size(); ++k) out.push_back(json_int(value[k], file, index_path(path, k)));
  return out;
}

void expect_object(const json& value, const std::string& file, const std::string& path) {
  if (!value.is_object()) type_error(value, file, path, "an object");
}

const json* find_member(const json& object, std::string_view key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json* find_non_null(const json& object, std::string_view key) {
  const json* member = find_member(object, key);
  return member && !member->is_null() ? member : nullptr;
}

const json& require_member(const json& object, std::string_view key, const std::string& file,
                           const std::string& object_path, std::string_view what) {
  if (const json* member = find_member(object, key)) return *member;
  throw InputError(file, join_path(object_path, key),
                   "missing required key `" + std::string(key) + "` (" + std::string(what) + ")");
}

std::size_t json_choice(const json& value, std::initializer_list<std::string_view> names,
                        const std::string& file, const std::string& path, std::string_view what) {
  const std::string text = json_string(value, file, path);
  const std::string wanted = lower(text);
  std::size_t index = 0;
  for (auto name : names) {
    if (lower(name) == wanted) return index;
    ++index;
  }
  std::string valid;
  for (auto name : names) valid += (valid.empty() ? "" : ", ") + std::string(name);
  throw InputError(file, path,
                   "unknown " + std::string(what) + " \"" + text + "\"; expected one of " + valid);
}

// ---- node settings ------------------------------------------------------------------------

std::string settings_key(const Node& node) {
  if (!node.settings_key.empty()) return node.settings_key;
  // Convolutions are written with `parameters`, every other op with `attributes`
  // (reference/GRAPH-FORMAT.md).
  switch (node.kind) {
    case OpKind::conv_fwd:
    case OpKind::conv_bwd_data:
    case OpKind::conv_bwd_weights:
      return "parameters";
    default:
      return "attributes";
  }
}

std::string settings_sub_path(const Node& node, std::string_view key) {
  return join_path(settings_key(node), key);
}

std::string settings_path(const Node& node, const NodeContext& where, std::string_view key) {
  return join_path(where.path, settings_sub_path(node, key));
}

const json& node_settings(const json& node_json, const Node& node) {
  static const json kEmpty = json::object();
  if (!node_json.is_object()) return kEmpty;
  const json* settings = find_non_null(node_json, settings_key(node));
  return settings ? *settings : kEmpty;
}

std::vector<std::int64_t> optional_int_array_setting(const json& node_json, const Node& node,
                                                     const NodeContext& where, std::string_view key) {
  const json* value = find_non_null(node_settings(node_json, node), key);
  if (!value) return {};
  return json_int_array(*value, where.file, settings_path(node, where, key));
}

// ---- errors inside a node -----------------------------------------------------------------

void node_error(const NodeContext& where, const std::string& sub_path, const std::string& message) {
  throw InputError(where.file, sub_path.empty() ? where.path : join_path(where.path, sub_path), message);
}

std::string port_path(std::string_view direction, std::string_view role) {
  const auto bracket = role.find('[');
  if (bracket == std::string_view::npos)
    return std::string(direction) + "." + std::string(role) + "_tensor_uid";
  return std::string(direction) + "." + std::string(role.substr(0, bracket)) + "_tensor_uid" +
         std::string(role.substr(bracket));
}

// ---- tensors by role ----------------------------------------------------------------------

namespace {

const TensorDesc& bound_tensor(const Graph& graph, std::int64_t uid, const NodeContext& where,
                               const std::string& sub_path) {
  if (const auto* t = graph.find_tensor(uid)) return *t;
  node_error(where, sub_path, "uid " + std::to_string(uid) + " is not a tensor of the graph");
}

}  // namespace

const TensorDesc& input_tensor(const Graph& graph, const Node& node, const NodeContext& where,
                               std::string_view role) {
  const auto uid = node.input(role);
  if (!uid)
    node_error(where, "inputs",
               "missing required input `" + std::string(role) + "_tensor_uid` of " + node.type);
  return bound_tensor(graph, *uid, where, port_path("inputs", role));
}

const TensorDesc& output_tensor(const Graph& graph, const Node& node, const NodeContext& where,
                                std::string_view role) {
  const auto uid = node.output(role);
  if (!uid)
    node_error(where, "outputs",
               "missing required output `" + std::string(role) + "_tensor_uid` of " + node.type);
  return bound_tensor(graph, *uid, where, port_path("outputs", role));
}

const TensorDesc* optional_input(const Graph& graph, const Node& node, std::string_view role) {
  const auto uid = node.input(role);
  return uid ? graph.find_tensor(*uid) : nullptr;
}

const TensorDesc* optional_output(const Graph& graph, const Node& node, std::string_view role) {
  const auto uid = node.output(role);
  return uid ? graph.find_tensor(*uid) : nullptr;
}

// ---- shapes -------------------------------------------------------------------------------

std::string dims_string(const std::vector<std::int64_t>& dims) {
  std::string out = "[";
  for (std::size_t k = 0; k < dims.size(); ++k) out += (k ? ", " : "") + std::to_string(dims[k]);
  return out + "]";
}

bool broadcasts_to(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  if (from.size() > to.size()) return false;
  const std::size_t shift = to.size() - from.size();
  for (std::size_t k = 0; k < from.size(); ++k)
    if (from[k] != to[k + shift] && from[k] != 1) return false;
  return true;
}

void check_rank(const TensorDesc& t, std::initializer_list<std::size_t> ranks, const NodeContext& where,
                const std::string& sub_path, std::string_view role) {
  if (std::find(ranks.begin(), ranks.end(), t.dims.size()) != ranks.end()) return;
  std::string allowed;
  std::size_t k = 0;
  for (auto r : ranks) {
    allowed += (k == 0 ? "" : (k + 1 == ranks.size() ? " or " : ", ")) + std::to_string(r);
    ++k;
  }
  node_error(where, sub_path,
             std::string(role) + " \"" + t.name + "\" has rank " + std::to_string(t.dims.size()) + " (dims " +
                 dims_string(t.dims) + "); expected rank " + allowed);
}

void check_dims_equal(const TensorDesc& actual, const std::vector<std::int64_t>& expected,
                      const NodeContext& where, const std::string& sub_path, std::string_view role,
                      std::string_view why) {
  if (actual.dims == expected) return;
  node_error(where, sub_path,
             std::string(role) + " \"" + actual.name + "\" has dims " + dims_string(actual.dims) +
                 "; expected " + dims_string(expected) + (why.empty() ? "" : " (" + std::string(why) + ")"));
}

void check_scalar_input(const Graph& graph, const Node& node, const NodeContext& where,
                        std::string_view role) {
  const TensorDesc& t = input_tensor(graph, node, where, role);
  if (t.is_by_value() || t.element_count() == 1) return;
  node_error(where, port_path("inputs", role),
             std::string(role) + " \"" + t.name + "\" has dims " + dims_string(t.dims) +
                 "; expected a by-value scalar or a one-element tensor");
}

// Settings values beyond int32 are never meaningful and would only invite overflow below.
namespace {
constexpr std::int64_t kMaxSetting = std::numeric_limits<std::int32_t>::max();

}  // namespace

// Fills a missing setting with its default and checks length and range of a present one.
void check_spatial_setting(std::vector<std::int64_t>& values, std::string_view key,
                           std::int64_t default_value, std::int64_t min_value, std::size_t spatial,
                           const Node& node, const NodeContext& where) {
  const std::string path = settings_sub_path(node, key);
  if (values.empty()) values.assign(spatial, default_value);
  if (values.size() != spatial)
    node_error(where, path,
               std::string(key) + " has " + std::to_string(values.size()) + " entries; expected " +
                   std::to_string(spatial) + " (one per spatial dimension)");
  for (std::size_t k = 0; k < spatial; ++k) {
    if (values[k] < min_value || values[k] > kMaxSetting)
      node_error(where, index_path(path, k),
                 std::string(key) + " must be " + (min_value == 0 ? ">= 0" : ">= 1") +
                     " and <= " + std::to_string(kMaxSetting) + ", got " + std::to_string(values[k]));
  }
}

double product_f(const std::vector<std::int64_t>& dims) {
  double p = 1;
  for (auto d : dims) p *= static_cast<double>(d);
  return p;
}

}  // namespace dnnbench
