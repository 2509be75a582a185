// libFuzzer target: hostile bytes as a graph archive. extract_archive must never throw, and
// what it leaves on disk must be exactly its successful entries: regular files inside the
// extraction folder, no links, nothing else.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "input/archive.hpp"

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "archive fuzz: %s\n", what.c_str());
  std::abort();
}

// Small caps so that a bomb is stopped in microseconds, not after 2 GiB.
dnnbench::ArchiveLimits fuzz_limits() {
  dnnbench::ArchiveLimits limits;
  limits.max_entry_bytes = 1 << 20;
  limits.max_total_bytes = 4 << 20;
  limits.max_entries = 1000;
  limits.ratio_floor_bytes = 256 << 10;
  return limits;
}

void check_extraction(const std::vector<dnnbench::ArchiveEntry>& entries, const fs::path& into) {
  std::set<fs::path> extracted;
  for (const auto& e : entries) {
    if (e.error) {
      if (e.error->find("in.tar") == std::string::npos)
        fail("an error that does not name the archive: " + *e.error);
      if (!e.file.empty()) fail("a refused entry with a file: " + e.name);
      continue;
    }
    const auto relative = e.file.lexically_relative(into);
    if (relative.empty() || *relative.begin() == "..") fail("written outside the folder: " + e.file.string());
    extracted.insert(e.file);
  }
  for (const auto& item : fs::recursive_directory_iterator(into)) {
    if (item.is_symlink()) fail("a link was created: " + item.path().string());
    if (item.is_directory()) continue;
    if (!item.is_regular_file()) fail("not a regular file: " + item.path().string());
    if (!extracted.count(item.path())) fail("a file that is no successful entry: " + item.path().string());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const dnnbench::ScopedTempDir work("dnnbench-fuzz-archive");
  const fs::path archive = work.path() / "in.tar", into = work.path() / "into";
  {
    std::ofstream out(archive, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  fs::remove_all(into);
  fs::create_directory(into);
  check_extraction(dnnbench::extract_archive(archive, into, fuzz_limits()), into);
  fs::remove_all(into);
  return 0;
}
