#pragma once
// dnnbench's folder in the user's cache, shared by what dnnbench keeps between runs (the
// calibration file, the compiled-plan cache).
#include <cstdlib>
#include <filesystem>
#include <optional>

namespace dnnbench {

// $XDG_CACHE_HOME/dnnbench, else $HOME/.cache/dnnbench; nullopt when neither is set.
inline std::optional<std::filesystem::path> dnnbench_cache_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "dnnbench";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "dnnbench";
  return std::nullopt;
}

}  // namespace dnnbench
