#pragma once
// Cold-cache measurement (--cache-mode cold): before each timed execution, the caches the plan's
// data could still sit in are overwritten, outside the timed region. This is the CPU's
// last-level cache flush, for host providers; device providers flush through their stream
// (Stream::make_cache_flusher, e.g. the cuDNN provider's L2 flush).
#include <cstddef>
#include <string>
#include <vector>

namespace dnnbench {

// Bytes of the largest cache of cpu0 (/sys/devices/system/cpu/cpu0/cache/index*/size), or 0
// when unreadable. `sysfs_cache_dir` is a parameter so tests can point it at a fake tree.
std::size_t last_level_cache_bytes(const std::string& sysfs_cache_dir = "/sys/devices/system/cpu/cpu0/cache");
// Parses a sysfs cache size ("32K", "1024K", "30M", "12345"); 0 when malformed.
std::size_t parse_cache_size(const std::string& text);

// Writes and then reads a buffer twice the LLC's size: written lines evict the plan's data
// (a read-only sweep can leave lines the replacement policy prefers), and the read-back keeps
// the compiler from dropping the writes.
class HostCacheFlusher {
 public:
  // 0: read the LLC size from sysfs (8 MiB assumed when unreadable).
  explicit HostCacheFlusher(std::size_t llc_bytes = 0);
  HostCacheFlusher(const HostCacheFlusher&) = delete;
  HostCacheFlusher& operator=(const HostCacheFlusher&) = delete;
  void flush();
  std::string description() const;
  std::size_t buffer_bytes() const { return buffer_.size(); }

 private:
  std::vector<unsigned char> buffer_;
  std::size_t llc_bytes_;
  unsigned pass_ = 0;
  volatile unsigned sink_ = 0;
};

}  // namespace dnnbench
