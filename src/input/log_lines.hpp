#pragma once
// Logs a program wrote (oneDNN's verbose output, cuDNN's API log) are read as lines, plain or
// compressed (`.gz`, `.xz`, `.bz2`, `.zst`: input/archive.hpp), in bounded memory: a training step
// can log gigabytes.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace dnnbench {

// A line longer than this is handed over cut at this length (no log line of a library comes
// near it; a binary file read as a log would otherwise be held whole).
inline constexpr std::size_t kMaxLogLineBytes = 1 << 20;

struct LogReadEnd {
  std::size_t lines = 0;
  std::uint64_t bytes = 0;  // of text (after decompression)
  std::string problem;      // "" or why the file ended early (a compressed stream cut short)
};

// Calls `line` with each line (without its newline; a trailing '\r' is dropped) and its 1-based
// number, then returns how the file ended. `progress`, when set, is told the bytes of text read so
// far about every 16 MiB. Throws InputError for a file that cannot be opened.
LogReadEnd for_each_log_line(const std::filesystem::path& path,
                             const std::function<void(std::string_view line, std::size_t number)>& line,
                             const std::function<void(std::uint64_t bytes)>& progress = {});

// The first `limit` bytes of the file's text (decompressed when compressed), to recognise its
// format; "" when it cannot be read.
std::string log_head(const std::filesystem::path& path, std::size_t limit);

}  // namespace dnnbench
