#include "reference/node_io.hpp"

#include <sstream>
#include <stdexcept>

namespace dnnbench::ref {

namespace {

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::ostringstream out;
  out << '[';
  for (std::size_t k = 0; k < dims.size(); ++k) out << (k ? "," : "") << dims[k];
  out << ']';
  return out.str();
}

const TensorDesc& tensor_of(const Graph& graph, const Node& node, std::int64_t uid, std::string_view role) {
  if (const auto* t = graph.find_tensor(uid)) return *t;
  fail(node, "role '" + std::string(role) + "' names tensor uid " + std::to_string(uid) +
                 " that the graph does not have");
}

}  // namespace

void fail(const Node& node, const std::string& what) {
  throw std::runtime_error("reference: node '" + node.name + "' (" + node.type + "): " + what);
}

const Dense* optional_input(const Graph& graph, const Node& node, const Values& values,
                            std::string_view role) {
  const auto uid = node.input(role);
  if (!uid) return nullptr;
  const auto& desc = tensor_of(graph, node, *uid, role);
  const auto it = values.find(*uid);
  if (it == values.end())
    fail(node, "no value for input '" + std::string(role) + "' (tensor '" + desc.name + "', uid " +
                   std::to_string(*uid) + ")");
  if (it->second.dims != desc.dims)
    fail(node, "value of input '" + std::string(role) + "' has dims " + dims_text(it->second.dims) +
                   " but tensor '" + desc.name + "' has dims " + dims_text(desc.dims));
  return &it->second;
}

const Dense& input(const Graph& graph, const Node& node, const Values& values, std::string_view role) {
  if (const Dense* d = optional_input(graph, node, values, role)) return *d;
  fail(node, "missing input role '" + std::string(role) + "'");
}

double scalar_input(const Graph& graph, const Node& node, const Values& values, std::string_view role) {
  const auto uid = node.input(role);
  if (!uid) fail(node, "missing input role '" + std::string(role) + "'");
  const auto& desc = tensor_of(graph, node, *uid, role);
  const auto it = values.find(*uid);
  if (it == values.end()) {
    if (desc.scalar_value) return *desc.scalar_value;
    fail(node, "no value for scalar input '" + std::string(role) + "' (tensor '" + desc.name + "')");
  }
  if (it->second.size() != 1)
    fail(node, "scalar input '" + std::string(role) + "' has " + std::to_string(it->second.size()) +
                   " elements, expected 1");
  return it->second.data[0];
}

Dense* optional_output(const Graph& graph, const Node& node, Values& values, std::string_view role) {
  const auto uid = node.output(role);
  if (!uid) return nullptr;
  const auto& desc = tensor_of(graph, node, *uid, role);
  // unordered_map keeps references to other elements valid across insertion, so inputs already
  // fetched by the caller stay usable.
  Dense& out = values[*uid];
  out = Dense(desc.dims);
  return &out;
}

Dense& output(const Graph& graph, const Node& node, Values& values, std::string_view role) {
  if (Dense* d = optional_output(graph, node, values, role)) return *d;
  fail(node, "missing output role '" + std::string(role) + "'");
}

std::vector<std::int64_t> spatial_setting(const Node& node, const std::vector<std::int64_t>& given,
                                          std::size_t spatial, std::int64_t fallback, const char* what) {
  if (given.empty()) return std::vector<std::int64_t>(spatial, fallback);
  if (given.size() != spatial)
    fail(node, std::string(what) + " has " + std::to_string(given.size()) + " entries for " +
                   std::to_string(spatial) + " spatial dims");
  return given;
}

}  // namespace dnnbench::ref
