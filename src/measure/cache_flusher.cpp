#include "measure/cache_flusher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace dnnbench {
namespace {

// When sysfs says nothing (containers can hide it): larger than the LLC of most desktop parts;
// a server part with more LLC is then under-flushed, which the description says.
constexpr std::size_t kAssumedLlcBytes = 8u << 20;
// Cache lines are 64 bytes on every x86-64 and AArch64 part this runs on; touching one byte per
// line is enough to own the line.
constexpr std::size_t kLineBytes = 64;

}  // namespace

std::size_t parse_cache_size(const std::string& text) {
  std::size_t i = 0, value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    value = value * 10 + static_cast<std::size_t>(text[i++] - '0');
  if (i == 0) return 0;
  std::string suffix = text.substr(i);
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.back()))) suffix.pop_back();
  if (suffix.empty()) return value;
  if (suffix == "K") return value << 10;
  if (suffix == "M") return value << 20;
  if (suffix == "G") return value << 30;
  return 0;
}

std::size_t last_level_cache_bytes(const std::string& sysfs_cache_dir) {
  std::error_code ec;
  std::size_t largest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs_cache_dir, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    std::ifstream in(entry.path() / "size");
    std::string text;
    if (in >> text) largest = std::max(largest, parse_cache_size(text));
  }
  return largest;
}

HostCacheFlusher::HostCacheFlusher(std::size_t llc_bytes) {
  if (llc_bytes == 0) llc_bytes = last_level_cache_bytes();
  llc_bytes_ = llc_bytes;
  // Twice the LLC: with a non-LRU replacement policy one pass of exactly the LLC's size can
  // leave part of the plan's data resident.
  buffer_.assign(2 * (llc_bytes ? llc_bytes : kAssumedLlcBytes), 0);
}

void HostCacheFlusher::flush() {
  ++pass_;
  const auto value = static_cast<unsigned char>(pass_);
  for (std::size_t i = 0; i < buffer_.size(); i += kLineBytes) buffer_[i] = value;
  unsigned sum = 0;
  for (std::size_t i = 0; i < buffer_.size(); i += kLineBytes) sum += buffer_[i];
  sink_ = sum;
}

std::string HostCacheFlusher::description() const {
  return llc_bytes_ ? fmt::format("write+read {} MiB (2x the {} MiB LLC of cpu0)", buffer_.size() >> 20,
                                  llc_bytes_ >> 20)
                    : fmt::format("write+read {} MiB (LLC size unreadable; {} MiB assumed)",
                                  buffer_.size() >> 20, kAssumedLlcBytes >> 20);
}

}  // namespace dnnbench
