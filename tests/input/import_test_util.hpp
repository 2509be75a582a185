#pragma once
// Helpers for the converters' tests: every imported graph must read back and validate with
// dnnbench's own reader (the round trip), and errors must name the file and line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "input/import.hpp"

namespace dnnbench::testing {

// Reads an imported graph back through the reader and validates it (throws on failure).
inline Graph round_trip(const nlohmann::json& graph) {
  Graph parsed = parse_graph_json(graph.dump(), "imported");
  validate_graph(parsed);
  return parsed;
}

inline std::vector<std::int64_t> dims_of(const Graph& g, const std::string& name) {
  for (const auto& t : g.tensors)
    if (t.name == name) return t.dims;
  ADD_FAILURE() << "no tensor " << name;
  return {};
}

// The name by value (string_view), not as a const std::string&: g++ 13's -Wdangling-reference
// takes a literal bound to a reference parameter for the referent of the returned reference.
inline const TensorDesc& tensor_named(const Graph& g, std::string_view name) {
  for (const auto& t : g.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + std::string(name));
}

// The message of the InputError `statement` throws ("" when it throws none).
#define IMPORT_ERROR(statement)                 \
  [&]() -> std::string {                        \
    try {                                       \
      statement;                                \
    } catch (const ::dnnbench::InputError& e) { \
      return e.what();                          \
    }                                           \
    return "";                                  \
  }()

}  // namespace dnnbench::testing
