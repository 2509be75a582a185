#include "input/log_lines.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "graph/errors.hpp"
#include "input/archive.hpp"

namespace dnnbench {
namespace {

constexpr std::uint64_t kProgressEveryBytes = 16ull << 20;

// Splits chunks of text into lines, holding at most one line (capped) between chunks.
class LineSplitter {
 public:
  LineSplitter(const std::function<void(std::string_view, std::size_t)>& line,
               const std::function<void(std::uint64_t)>& progress)
      : line_(line), progress_(progress) {}

  void feed(std::string_view chunk) {
    end_.bytes += chunk.size();
    while (!chunk.empty()) {
      const auto at = chunk.find('\n');
      const auto piece = chunk.substr(0, at);
      if (pending_.size() < kMaxLogLineBytes)
        pending_.append(piece.substr(0, kMaxLogLineBytes - pending_.size()));
      if (at == std::string_view::npos) break;
      emit();
      chunk.remove_prefix(at + 1);
    }
    if (progress_ && end_.bytes >= next_progress_) {
      progress_(end_.bytes);
      next_progress_ = end_.bytes + kProgressEveryBytes;
    }
  }

  LogReadEnd finish(std::string problem) {
    if (!pending_.empty()) emit();
    end_.problem = std::move(problem);
    return end_;
  }

 private:
  void emit() {
    if (!pending_.empty() && pending_.back() == '\r') pending_.pop_back();
    line_(pending_, ++end_.lines);
    pending_.clear();
  }

  const std::function<void(std::string_view, std::size_t)>& line_;
  const std::function<void(std::uint64_t)>& progress_;
  std::string pending_;
  LogReadEnd end_;
  std::uint64_t next_progress_ = kProgressEveryBytes;
};

}  // namespace

LogReadEnd for_each_log_line(const std::filesystem::path& path,
                             const std::function<void(std::string_view, std::size_t)>& line,
                             const std::function<void(std::uint64_t)>& progress) {
  LineSplitter splitter(line, progress);
  if (is_compressed_file_path(path)) {
    auto problem = read_compressed_file(path, [&](std::string_view chunk) {
      splitter.feed(chunk);
      return true;
    });
    return splitter.finish(std::move(problem));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", std::string("cannot open the file: ") + std::strerror(errno));
  std::string buffer(64 << 10, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    splitter.feed(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
  return splitter.finish(in.bad() ? std::string("cannot read the file: ") + std::strerror(errno) : "");
}

std::string log_head(const std::filesystem::path& path, std::size_t limit) {
  std::string head;
  try {
    if (is_compressed_file_path(path)) {
      read_compressed_file(path, [&](std::string_view chunk) {
        head.append(chunk.substr(0, limit - head.size()));
        return head.size() < limit;
      });
      return head;
    }
  } catch (const InputError&) {
    return "";
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  head.resize(limit);
  in.read(head.data(), static_cast<std::streamsize>(limit));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

}  // namespace dnnbench
