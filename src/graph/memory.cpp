#include "graph/memory.hpp"

#include <cstdio>
#include <limits>
#include <unordered_set>

namespace dnnbench {

std::string describe_bytes(std::int64_t bytes) {
  char text[64];
  const double b = static_cast<double>(bytes);
  if (bytes >= (std::int64_t{1} << 30))
    std::snprintf(text, sizeof text, "%.2f GiB", b / double(std::int64_t{1} << 30));
  else
    std::snprintf(text, sizeof text, "%.2f MiB", b / double(1 << 20));
  return std::string(text) + " (" + std::to_string(bytes) + " bytes)";
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::int64_t>::max() : sum;
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::int64_t>::max() : product;
}

std::int64_t GraphTensorBytes::storage() const {
  return saturating_add(inputs, outputs);
}

GraphTensorBytes graph_tensor_bytes(const Graph& graph) {
  std::unordered_set<std::int64_t> produced;
  for (const auto& node : graph.nodes)
    for (const auto& port : node.outputs) produced.insert(port.uid);
  // The reference holds logical values in fp64, whatever the tensor's own type.
  constexpr std::int64_t kReferenceBytes = sizeof(double);
  GraphTensorBytes bytes;
  for (const auto& t : graph.tensors) {
    const std::int64_t values = saturating_mul(t.element_count(), kReferenceBytes);
    bytes.reference = saturating_add(bytes.reference, values);
    if (t.is_virtual || t.is_by_value()) continue;
    if (produced.count(t.uid)) {
      bytes.outputs = saturating_add(bytes.outputs, t.storage_bytes());
      bytes.output_values = saturating_add(bytes.output_values, values);
    } else {
      bytes.inputs = saturating_add(bytes.inputs, t.storage_bytes());
    }
  }
  return bytes;
}

}  // namespace dnnbench
