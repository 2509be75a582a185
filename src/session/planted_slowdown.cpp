#include "session/planted_slowdown.hpp"

#include <cstdlib>
#include <string>

namespace dnnbench {

std::optional<double> parse_planted_slowdown(const char* text) {
  if (!text || !*text) return std::nullopt;
  char* end = nullptr;
  const double factor = std::strtod(text, &end);
  // Up to 4x: a plant is a known, modest change, and its wait must fit the batch a row sizes
  // from the unplanted execution.
  if (end == text || *end != '\0' || !(factor > 1.0 && factor <= 4.0)) return std::nullopt;
  return factor;
}

std::optional<double> planted_device_slowdown() {
  return parse_planted_slowdown(std::getenv(kPlantedSlowdownVariable));
}

}  // namespace dnnbench
