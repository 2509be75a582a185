#include "input/archive.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

#include "graph/errors.hpp"
#include "sys/ascii_case.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

struct ArchiveReadDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};
using ArchiveReader = std::unique_ptr<struct archive, ArchiveReadDeleter>;

// A file descriptor closed on every path out of the writer.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string entry_name(struct archive_entry* entry) {
  if (const char* name = archive_entry_pathname_utf8(entry)) return name;
  if (const char* name = archive_entry_pathname(entry)) return name;
  return "";
}

// "./a.json" -> "a.json": `tar -C dir .`, the usual way to pack a folder, prefixes every entry.
std::string without_dot_prefix(std::string name) {
  std::size_t start = 0;
  while (name.compare(start, 2, "./") == 0) {
    start += 2;
    while (start < name.size() && name[start] == '/') ++start;
  }
  return name.substr(start);
}

// What kind of entry this is when it is not something we extract ("" for regular files and folders).
std::string refused_type(struct archive_entry* entry) {
  if (const char* target = archive_entry_hardlink(entry))
    return fmt::format("is a hard link to '{}'; links are not extracted", target);
  switch (archive_entry_filetype(entry)) {
    case AE_IFREG:
    case AE_IFDIR:
      return "";
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(entry);
      return fmt::format("is a symbolic link to '{}'; links are not extracted", target ? target : "?");
    }
    case AE_IFCHR:
      return "is a character device; only regular files are extracted";
    case AE_IFBLK:
      return "is a block device; only regular files are extracted";
    case AE_IFIFO:
      return "is a FIFO; only regular files are extracted";
    case AE_IFSOCK:
      return "is a socket; only regular files are extracted";
    default:
      return "has an unknown file type; only regular files are extracted";
  }
}

// Extraction of one archive; holds the running totals the caps are checked against.
class Extractor {
 public:
  Extractor(const fs::path& archive, const fs::path& into, const ArchiveLimits& limits)
      : archive_(archive), into_(into), limits_(limits), label_(printable_text(archive.string())) {
    std::error_code ec;
    archive_bytes_ = fs::file_size(archive, ec);
    if (ec) archive_bytes_ = 0;
  }

  std::vector<ArchiveEntry> run() {
    ArchiveReader reader(archive_read_new());
    if (!reader) return {archive_error("cannot allocate an archive reader")};
    struct archive* a = reader.get();
    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_format_zip(a);
    // 64 KiB reads: large enough for throughput, small enough not to matter.
    if (archive_read_open_filename(a, archive_.c_str(), 64 << 10) != ARCHIVE_OK)
      return {archive_error(fmt::format("cannot open the archive: {}", error_text(a)))};
    std::uint64_t headers = 0;
    for (;;) {
      struct archive_entry* entry = nullptr;
      const int status = archive_read_next_header(a, &entry);
      if (status == ARCHIVE_EOF) break;
      if (status != ARCHIVE_OK && status != ARCHIVE_WARN) {
        entries_.push_back(archive_error(fmt::format("corrupt or unreadable archive: {}", error_text(a))));
        break;
      }
      if (++headers > limits_.max_entries) {
        entries_.push_back(archive_error(
            fmt::format("more than {} entries; extraction stopped (cap on entries)", limits_.max_entries)));
        break;
      }
      if (!take_entry(a, entry)) break;
    }
    return std::move(entries_);
  }

 private:
  ArchiveEntry archive_error(const std::string& message) const {
    return {"", {}, fmt::format("{}: {}", label_, message)};
  }

  // `name` is shown escaped: a refused name may hold control characters or bytes that are not UTF-8.
  void refuse(const std::string& name, const std::string& reason) {
    const std::string shown = printable_text(name);
    entries_.push_back({shown, {}, fmt::format("{}: entry '{}': refused: {}", label_, shown, reason)});
  }

  static std::string error_text(struct archive* a) {
    const char* text = archive_error_string(a);
    return text ? text : "unknown libarchive error";
  }

  // Returns false when extraction must stop (a cap was reached or the stream is broken).
  bool take_entry(struct archive* a, struct archive_entry* entry) {
    const std::string raw = entry_name(entry);
    if (raw.empty()) {
      refuse("?", "the entry's name cannot be read");
      return true;
    }
    // Folders are never made from their entries (those of the files are made from the files'
    // checked paths), so a folder entry, `./` included, is passed over without a word.
    if (archive_entry_filetype(entry) == AE_IFDIR && !archive_entry_hardlink(entry)) return true;
    const std::string name = without_dot_prefix(raw);
    if (name.empty()) {
      refuse(raw, "its path names no file");
      return true;
    }
    if (const auto reason = unsafe_entry_path_reason(name); !reason.empty()) {
      refuse(name, reason);
      return true;
    }
    if (const auto reason = refused_type(entry); !reason.empty()) {
      refuse(name, reason);
      return true;
    }
    if (!ends_with(ascii_lower(name), ".json")) return true;
    if (archive_entry_size_is_set(entry)) {
      const auto declared = static_cast<std::uint64_t>(std::max<la_int64_t>(0, archive_entry_size(entry)));
      if (declared > limits_.max_entry_bytes) {
        refuse(name, fmt::format("its size ({} bytes) is over the cap of {} bytes per entry", declared,
                                 limits_.max_entry_bytes));
        return true;
      }
      if (total_ + declared > limits_.max_total_bytes) {
        refuse(name, fmt::format("the archive would extract to more than {} bytes; extraction stopped",
                                 limits_.max_total_bytes));
        return false;
      }
    }
    return write_entry(a, name);
  }

  bool write_entry(struct archive* a, const std::string& name) {
    const fs::path target = into_ / fs::path(name).lexically_normal().relative_path();
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      refuse(name, fmt::format("cannot create its folder: {}", ec.message()));
      return true;
    }
    // O_EXCL: a second entry with the same name is refused instead of overwriting the first;
    // O_NOFOLLOW: never write through a link (none are created, this is belt and braces).
    FileDescriptor fd(::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (fd.get() < 0) {
      refuse(name, errno == EEXIST ? "an entry of the same name was already extracted"
                                   : fmt::format("cannot create the file: {}", std::strerror(errno)));
      return true;
    }
    std::array<char, 64 << 10> buffer{};
    std::uint64_t written = 0;
    for (;;) {
      const la_ssize_t got = archive_read_data(a, buffer.data(), buffer.size());
      if (got == 0) break;
      if (got < 0) {
        discard(target, fd);
        refuse(name, fmt::format("cannot read its data: {}", error_text(a)));
        return got != ARCHIVE_FATAL;
      }
      written += static_cast<std::uint64_t>(got);
      total_ += static_cast<std::uint64_t>(got);
      // Checked on bytes written, not on the header's size, which a crafted archive can understate.
      if (const auto stop = cap_reached(written); !stop.empty()) {
        discard(target, fd);
        refuse(name, stop);
        return false;
      }
      if (!write_all(fd.get(), buffer.data(), static_cast<std::size_t>(got))) {
        const std::string reason = fmt::format("cannot write it: {}", std::strerror(errno));
        discard(target, fd);
        refuse(name, reason);
        return false;
      }
    }
    if (::close(fd.release()) != 0) {
      refuse(name, fmt::format("cannot write it: {}", std::strerror(errno)));
      return true;
    }
    entries_.push_back({name, target, std::nullopt});
    return true;
  }

  std::string cap_reached(std::uint64_t written) const {
    if (written > limits_.max_entry_bytes)
      return fmt::format("it extracts to more than {} bytes (cap per entry); extraction stopped",
                         limits_.max_entry_bytes);
    if (total_ > limits_.max_total_bytes)
      return fmt::format("the archive extracts to more than {} bytes (cap per archive); extraction stopped",
                         limits_.max_total_bytes);
    if (total_ > limits_.ratio_floor_bytes &&
        static_cast<double>(total_) >
            limits_.max_ratio * static_cast<double>(std::max<std::uint64_t>(archive_bytes_, 1)))
      return fmt::format(
          "the archive ({} bytes) expands more than {:.0f}:1 (a decompression bomb?); extraction stopped",
          archive_bytes_, limits_.max_ratio);
    return "";
  }

  static bool write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
      const ssize_t n = ::write(fd, data, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  static void discard(const fs::path& target, FileDescriptor& fd) {
    ::close(fd.release());
    ::unlink(target.c_str());
  }

  fs::path archive_, into_;
  ArchiveLimits limits_;
  std::string label_;
  std::uint64_t archive_bytes_ = 0, total_ = 0;
  std::vector<ArchiveEntry> entries_;
};

}  // namespace

ScopedTempDir::ScopedTempDir(const std::string& prefix) {
  std::error_code ec;
  auto base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error(
        fmt::format("cannot create a temporary folder {}: {}", pattern, std::strerror(errno)));
  path_ = pattern;
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);  // never throws: runs during unwinding too
}

namespace {

// gzip, xz, bzip2 and zstd streams' first bytes.
bool starts_like_a_compressed_stream(const fs::path& path) {
  std::array<unsigned char, 6> head{};
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0 || ::read(fd.get(), head.data(), head.size()) < 4) return false;
  const auto is = [&](std::initializer_list<unsigned char> magic) {
    return std::equal(magic.begin(), magic.end(), head.begin());
  };
  return is({0x1f, 0x8b}) || is({0xfd, '7', 'z', 'X', 'Z', 0x00}) || is({'B', 'Z', 'h'}) ||
         is({0x28, 0xb5, 0x2f, 0xfd});
}

}  // namespace

bool is_compressed_file_path(const fs::path& path) {
  if (is_archive_path(path)) return false;
  const auto name = ascii_lower(path.filename().string());
  for (const char* suffix : {".gz", ".xz", ".bz2", ".zst"})
    if (ends_with(name, suffix) && name.size() > std::string_view(suffix).size()) return true;
  return false;
}

std::string read_compressed_file(const fs::path& path, const std::function<bool(std::string_view)>& sink) {
  ArchiveReader reader(archive_read_new());
  auto* a = reader.get();
  if (!a) throw InputError(path.string(), "", "cannot start the decompressor");
  archive_read_support_filter_all(a);
  archive_read_support_format_raw(a);  // the whole stream as one entry
  const auto fault = [&] {
    const char* why = archive_error_string(a);
    return fmt::format("the compressed stream is corrupt or cut short ({})", why ? why : "no reason given");
  };
  const bool opened = archive_read_open_filename(a, path.c_str(), 64 << 10) == ARCHIVE_OK;
  // A stream that ended within its first block fails to open; its magic bytes say that it is a
  // log cut short, not a file of another kind.
  if (!opened && starts_like_a_compressed_stream(path)) return fault();
  const bool compressed = opened && archive_filter_count(a) >= 2;
  if (!opened)
    throw InputError(path.string(), "",
                     fmt::format("cannot read it as a compressed file: {}", archive_error_string(a)));
  if (!compressed)  // only the raw "none" filter
    throw InputError(path.string(), "",
                     "its name says compressed, but it is not a gzip, xz, bzip2 or zstd stream");
  // The header of the raw format is the first block of text: a stream cut short within it fails here.
  struct archive_entry* entry = nullptr;
  if (archive_read_next_header(a, &entry) != ARCHIVE_OK) return fault();
  std::array<char, 64 << 10> buffer{};
  for (;;) {
    const auto n = archive_read_data(a, buffer.data(), buffer.size());
    if (n == 0) return "";
    if (n < 0) return fault();
    if (!sink(std::string_view(buffer.data(), static_cast<std::size_t>(n)))) return "";
  }
}

bool is_archive_path(const fs::path& path) {
  const auto name = ascii_lower(path.filename().string());
  for (const char* suffix : {".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".zip"})
    if (ends_with(name, suffix)) return true;
  return false;
}

std::string unsafe_entry_path_reason(const std::string& entry_path) {
  if (entry_path.empty()) return "the entry has an empty name";
  if (entry_path.front() == '/') return "its path is absolute";
  if (entry_path.find('\0') != std::string::npos) return "its path contains a NUL byte";
  // Such a name could not be shown in one line of a message or written into the JSON results.
  if (printable_text(entry_path) != entry_path)
    return "its path has control characters or bytes that are not UTF-8";
  std::size_t start = 0;
  bool has_name = false;
  while (start <= entry_path.size()) {
    auto end = entry_path.find('/', start);
    if (end == std::string::npos) end = entry_path.size();
    const auto part = std::string_view(entry_path).substr(start, end - start);
    if (part == "..") return "its path has a '..' component (it would leave the extraction folder)";
    if (!part.empty() && part != ".") has_name = true;
    start = end + 1;
  }
  if (!has_name) return "its path names no file";
  return "";
}

std::vector<ArchiveEntry> extract_archive(const fs::path& archive, const fs::path& into,
                                          const ArchiveLimits& limits) {
  return Extractor(archive, into, limits).run();
}

}  // namespace dnnbench
