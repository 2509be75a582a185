#include "session/planted_slowdown.hpp"

#include <cstdio>
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
  const char* text = std::getenv(kPlantedSlowdownVariable);
  const auto factor = parse_planted_slowdown(text);
  // Set but not a factor: said once, since a run that silently plants nothing would pass for one
  // that found no change.
  static bool told = false;
  if (!factor && text && !told) {
    std::fprintf(stderr, "dnnbench: %s=%s: not a number in (1, 4]; nothing planted\n",
                 kPlantedSlowdownVariable, text);
    told = true;
  }
  return factor;
}

}  // namespace dnnbench
