#pragma once
// Progress of a run on stderr: one updating line on a terminal (graph i/N, rows done, elapsed,
// ETA), plain `[i/N] path` lines elsewhere (logs, CI), or nothing.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace dnnbench {

enum class ProgressMode { none, lines, bar };

// `requested`: "auto" | "bar" | "lines" | "none"; --quiet means none; auto is bar on a terminal.
ProgressMode resolve_progress_mode(std::string_view requested, bool quiet, bool stderr_is_terminal);

// "0:07", "12:45", "1:02:03".
std::string format_duration(double seconds);

// The bar's text, before fitting it to the terminal's width. `graphs_done` graphs took
// `elapsed_s`; the ETA extrapolates their mean over the graphs left ("--" before the first).
std::string progress_bar_text(std::size_t graph_number, std::size_t graph_count, std::size_t graphs_done,
                              std::size_t rows_done, double elapsed_s, std::string_view current);

class ProgressPrinter {
 public:
  explicit ProgressPrinter(ProgressMode mode) : mode_(mode), start_(std::chrono::steady_clock::now()) {}
  ~ProgressPrinter() { clear(); }
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  void graph_started(std::size_t index, std::size_t count, const std::string& path);
  void row_finished();
  void graph_finished();
  // Removes the bar before other output goes to the terminal (it is redrawn on the next event).
  void clear();

 private:
  void draw();
  ProgressMode mode_;
  std::chrono::steady_clock::time_point start_;
  std::size_t index_ = 0, count_ = 0, graphs_done_ = 0, rows_ = 0;
  std::string current_;
  bool drawn_ = false;
};

}  // namespace dnnbench
