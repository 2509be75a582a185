#include "cli/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace dnnbench {
namespace {

std::size_t terminal_width() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 20) return size.ws_col;
  return 100;  // a common default when the width cannot be read
}

}  // namespace

ProgressMode resolve_progress_mode(std::string_view requested, bool quiet, bool stderr_is_terminal) {
  if (quiet || requested == "none") return ProgressMode::none;
  if (requested == "bar") return ProgressMode::bar;
  if (requested == "lines") return ProgressMode::lines;
  return stderr_is_terminal ? ProgressMode::bar : ProgressMode::lines;
}

std::string format_duration(double seconds) {
  const auto total = static_cast<long long>(seconds < 0 ? 0 : seconds + 0.5);
  const long long h = total / 3600, m = (total / 60) % 60, s = total % 60;
  return h > 0 ? fmt::format("{}:{:02}:{:02}", h, m, s) : fmt::format("{}:{:02}", m, s);
}

std::string progress_bar_text(std::size_t graph_number, std::size_t graph_count, std::size_t graphs_done,
                              std::size_t rows_done, double elapsed_s, std::string_view current) {
  std::string eta = "--";
  if (graphs_done > 0 && graph_count >= graphs_done)
    eta = format_duration(elapsed_s / static_cast<double>(graphs_done) *
                          static_cast<double>(graph_count - graphs_done));
  return fmt::format("[{}/{}] {} rows, {} elapsed, ETA {}  {}", graph_number, graph_count, rows_done,
                     format_duration(elapsed_s), eta, current);
}

void ProgressPrinter::graph_started(std::size_t index, std::size_t count, const std::string& path) {
  index_ = index;
  count_ = count;
  current_ = path;
  if (mode_ == ProgressMode::lines) {
    std::fprintf(stderr, "[%zu/%zu] %s\n", index + 1, count, path.c_str());
    std::fflush(stderr);
  }
  draw();
}

void ProgressPrinter::row_finished() {
  ++rows_;
  draw();
}

void ProgressPrinter::graph_finished() {
  ++graphs_done_;
  draw();
}

void ProgressPrinter::clear() {
  if (mode_ != ProgressMode::bar || !drawn_) return;
  std::fputs("\r\x1b[K", stderr);  // carriage return, then erase to the end of the line
  std::fflush(stderr);
  drawn_ = false;
}

void ProgressPrinter::draw() {
  if (mode_ != ProgressMode::bar) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  auto text = progress_bar_text(index_ + 1, count_, graphs_done_, rows_, elapsed, current_);
  const auto width = terminal_width() - 1;  // never wrap: a wrapped line cannot be redrawn in place
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace dnnbench
