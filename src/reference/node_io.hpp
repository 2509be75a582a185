#pragma once
// How every reference op reads its inputs, settings and scalars and creates its outputs, with
// errors that name the node, so the op files hold only arithmetic.
#include <string>
#include <string_view>
#include <variant>

#include "reference/reference.hpp"

namespace dnnbench::ref {

// Throws std::runtime_error "reference: node '<name>' (<type>): <what>".
[[noreturn]] void fail(const Node& node, const std::string& what);
// A per-spatial-dim setting (stride, padding, dilation): `fallback` for each dim when the list is
// empty; fails naming `what` when its length is not `spatial`.
std::vector<std::int64_t> spatial_setting(const Node& node, const std::vector<std::int64_t>& given,
                                          std::size_t spatial, std::int64_t fallback, const char* what);

// The value bound to an input role; fails when the role or its value is missing, or when the
// value's dims differ from the graph tensor's.
const Dense& input(const Graph& graph, const Node& node, const Values& values, std::string_view role);
// nullptr when the node has no such role.
const Dense* optional_input(const Graph& graph, const Node& node, const Values& values,
                            std::string_view role);
// A 1-element input (a by-value scalar such as epsilon); falls back to the tensor's by-value
// value when `values` does not hold it.
double scalar_input(const Graph& graph, const Node& node, const Values& values, std::string_view role);

// Creates the output of a role as zeros shaped as the graph tensor (replacing any old value).
Dense& output(const Graph& graph, const Node& node, Values& values, std::string_view role);
// nullptr when the node has no such role.
Dense* optional_output(const Graph& graph, const Node& node, Values& values, std::string_view role);

// The node's typed settings; fails when the node carries other settings.
template <class T>
const T& params(const Node& node) {
  if (const T* p = std::get_if<T>(&node.params)) return *p;
  fail(node, "settings of the wrong kind for this op");
}

}  // namespace dnnbench::ref
