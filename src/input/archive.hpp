#pragma once
// Safe extraction of graph archives (.tar, .tar.gz/.tgz, .tar.xz, .tar.bz2, .zip) into a private
// temporary folder. Only regular `.json` files are written; every entry that could reach outside
// the folder or exhaust the disk is refused with a message naming the archive and the entry.
// libarchive is used only here.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnnbench {

// A folder made with mkdtemp (mode 0700) and removed with everything in it when destroyed,
// whether the run ends normally or by an exception.
class ScopedTempDir {
 public:
  explicit ScopedTempDir(const std::string& prefix = "dnnbench");
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct ArchiveLimits {
  // Graph JSON files are kilobytes; the largest real-workload graphs are a few MiB. 64 MiB per
  // entry leaves room for generated graphs with constant data while stopping runaway members.
  std::uint64_t max_entry_bytes = 64ull << 20;
  // The whole extraction: hipDNN's ~7,000-graph archives extract to a few hundred MiB.
  std::uint64_t max_total_bytes = 2ull << 30;
  // Headers read (files, folders, refused entries): far above any real suite.
  std::uint64_t max_entries = 200000;
  // Bomb guard on bytes actually written, whatever the headers say: once the output passes
  // `ratio_floor_bytes`, it may not exceed `max_ratio` times the archive's size on disk. JSON
  // compresses 5-30x; 200x is only reached by crafted or degenerate content.
  double max_ratio = 200;
  std::uint64_t ratio_floor_bytes = 64ull << 20;
};

// One graph file taken from an archive, or one refused entry.
struct ArchiveEntry {
  std::string name;                  // the entry's path inside the archive, or "" for the archive itself
  std::filesystem::path file;        // where it was written (empty when refused)
  std::optional<std::string> error;  // why it was refused, naming the archive and the entry
};

bool is_archive_path(const std::filesystem::path& path);

// A single compressed file (`verbose.log.gz`, `.xz`, `.bz2`, `.zst`): one stream, not an archive
// of files (`.tar.gz` and the other archive names are archives).
bool is_compressed_file_path(const std::filesystem::path& path);

// Decompresses `path` as one stream, handing `sink` its bytes chunk by chunk until the stream ends
// or `sink` returns false. Returns "" when the stream ended cleanly or the sink stopped, else why
// not (a corrupt or cut-short stream), after every byte before the fault was handed over. Throws
// InputError for a file that cannot be opened or read as a compressed stream at all.
std::string read_compressed_file(const std::filesystem::path& path,
                                 const std::function<bool(std::string_view chunk)>& sink);

// Extracts the `.json` regular files of `archive` under `into` (an empty folder the caller owns).
// Never throws for a bad archive: a corrupt or unreadable archive ends the list with an entry
// whose error says so; the entries read before it are kept.
std::vector<ArchiveEntry> extract_archive(const std::filesystem::path& archive,
                                          const std::filesystem::path& into, const ArchiveLimits& limits);

// The reason an entry path cannot be extracted (absolute, `..`, empty), or "" when it is safe.
std::string unsafe_entry_path_reason(const std::string& entry_path);

}  // namespace dnnbench
