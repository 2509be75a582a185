#pragma once
// cuDNN's API log (CUDNN_LOGLEVEL_DBG=3, CUDNN_LOGDEST_DBG=FILE) as a sequence of calls. Each call
// is a block of lines: a header naming the function and the library's version,
//     I! CuDNN (v91900 75) function cudnnBackendFinalize() called:
// the call's parameters, one per line, indented by nesting depth,
//     i!     descriptor: type=CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
// and a trailer with where it ran,
//     i! Time: 2026-12-05T04:10:11.123456 (0d+0h+0m+1s since start)
//     i! Process=4782; Thread=4782; GPU=0; Handle=0x55d1c8a0; StreamId=0x0 (defaultStream).
// The header's letter is the severity (I info, W warning, E error; lower case on the lines that
// continue the block). This layer knows the block structure only; input/cudnn_api_log.hpp reads
// meaning into the calls.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnnbench {

struct CudnnLogCall {
  std::size_t line = 0;  // of the header
  char severity = 'I';   // I, W or E
  std::string version;   // "91900" (cudnnGetVersion's number)
  std::string function;  // "cudnnBackendFinalize"
  // The parameter lines with the severity prefix removed, indentation kept.
  std::vector<std::string> lines;
  // From the trailer ("" where it said NULL or was missing).
  std::string process, thread, gpu, handle, stream;
  bool complete = false;  // the trailer was seen (a block cut by the next header is not)

  // The first parameter line `NAME: ...` at any depth whose name matches, its text after the
  // colon (trimmed); nullopt when absent.
  std::optional<std::string> field(std::string_view name) const;
  // `val=` of a `NAME: type=T; val=V;` line (the text between `val=` and the line's last `;`).
  std::optional<std::string> value(std::string_view name) const;
};

// Whether a line is the header of a cuDNN API log block.
bool is_cudnn_log_header(std::string_view line);

// Feeds lines in order and hands over each call when its block ends: at its trailer, or cut short
// by the next header or the end of the log (then complete is false). Lines outside any block (a
// program's own output in the same file) are ignored. Memory: one block at a time.
class CudnnLogCallReader {
 public:
  explicit CudnnLogCallReader(std::function<void(CudnnLogCall&&)> on_call) : on_call_(std::move(on_call)) {}
  void add(std::string_view line, std::size_t number);
  void finish();

 private:
  void hand_over();
  std::function<void(CudnnLogCall&&)> on_call_;
  std::optional<CudnnLogCall> open_;
};

}  // namespace dnnbench
