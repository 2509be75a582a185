#include "measure/cache_flusher.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace dnnbench {
namespace {

TEST(CacheFlusher, ParsesSysfsCacheSizes) {
  EXPECT_EQ(parse_cache_size("32K"), 32u << 10);
  EXPECT_EQ(parse_cache_size("30720K\n"), 30720u << 10);
  EXPECT_EQ(parse_cache_size("16M"), 16u << 20);
  EXPECT_EQ(parse_cache_size("4096"), 4096u);
  EXPECT_EQ(parse_cache_size("K"), 0u);
  EXPECT_EQ(parse_cache_size("12Q"), 0u);
  EXPECT_EQ(parse_cache_size(""), 0u);
}

TEST(CacheFlusher, LastLevelCacheIsTheLargestIndex) {
  const auto root = std::filesystem::temp_directory_path() / "dnnbench-cache-test";
  std::filesystem::remove_all(root);
  const std::pair<const char*, const char*> caches[] = {
      {"index0", "48K"}, {"index1", "32K"}, {"index2", "2048K"}, {"index3", "30M"}};
  for (const auto& [dir, size] : caches) {
    std::filesystem::create_directories(root / dir);
    std::ofstream(root / dir / "size") << size << "\n";
  }
  std::filesystem::create_directories(root / "power");  // not a cache index: ignored
  EXPECT_EQ(last_level_cache_bytes(root.string()), 30u << 20);
  EXPECT_EQ(last_level_cache_bytes((root / "missing").string()), 0u);
  std::filesystem::remove_all(root);
}

TEST(CacheFlusher, BufferIsTwiceTheLastLevelCache) {
  HostCacheFlusher flusher(1u << 20);
  EXPECT_EQ(flusher.buffer_bytes(), 2u << 20);
  flusher.flush();
  flusher.flush();
  EXPECT_NE(flusher.description().find("2 MiB"), std::string::npos) << flusher.description();
}

}  // namespace
}  // namespace dnnbench
