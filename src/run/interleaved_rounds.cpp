#include "run/interleaved_rounds.hpp"

#include <vector>

namespace dnnbench {

void interleave_chunks(std::size_t count, const std::function<bool(std::size_t)>& chunk) {
  std::vector<bool> finished(count, false);
  for (std::size_t left = count; left > 0;) {
    for (std::size_t i = 0; i < count; ++i) {
      if (finished[i]) continue;
      if (chunk(i)) {
        finished[i] = true;
        --left;
      }
    }
  }
}

}  // namespace dnnbench
