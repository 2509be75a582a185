// libFuzzer target: hostile bytes as a cuDNN API log. The importer must read anything: a block cut
// short, a graph JSON that does not parse or has another shape or schema, an operation with no
// graph node all become not-imported entries naming the log's line, and nothing else may escape
// (no exception, no sanitizer finding, no reason spread over several lines, no graph counted less
// than once).
#include <cstdint>
#include <string>

#include "graph/errors.hpp"
#include "import_result_checks.hpp"
#include "input/cudnn_api_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    dnnbench::fuzz::check_import_result("cudnn log", dnnbench::import_cudnn_api_log_text(text, "fuzz.log"),
                                        "fuzz.log");
  } catch (const std::exception& e) {
    dnnbench::fuzz::fail("cudnn log", std::string("an exception escaped: ") + e.what());
  }
  return 0;
}
