// libFuzzer target: hostile bytes as a cuDNN API log. The importer must read anything: a block cut
// short, a graph JSON that does not parse or has another shape or schema, an operation with no
// graph node all become not-imported entries naming the log's line, and nothing else may escape
// (no exception, no sanitizer finding, no reason spread over several lines, no graph counted less
// than once).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "input/cudnn_api_log.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "cudnn log fuzz: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto r = dnnbench::import_cudnn_api_log_text(text, "fuzz.log");
    for (const auto& g : r.graphs)
      if (g.count < 1 || g.source.rfind("fuzz.log:", 0) != 0)
        fail("a graph counted " + std::to_string(g.count) + " from " + g.source);
    for (const auto& n : r.not_imported) {
      if (n.reason.find('\n') != std::string::npos) fail("a reason over several lines: " + n.reason);
      if (n.source.rfind("fuzz.log:", 0) != 0)
        fail("a refusal that does not name the log's line: " + n.source);
    }
  } catch (const std::exception& e) {
    fail(std::string("an exception escaped: ") + e.what());
  }
  return 0;
}
