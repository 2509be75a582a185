// libFuzzer target: hostile bytes as a oneDNN verbose log. The importer must read anything: each
// malformed execution line becomes a not-imported entry naming its line, a problem the converter
// refuses becomes one with the converter's reason, and nothing else may escape (no exception, no
// sanitizer finding, no reason spread over several lines, no graph counted less than once).
#include <cstdint>
#include <string>

#include "graph/errors.hpp"
#include "import_result_checks.hpp"
#include "input/onednn_verbose.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    dnnbench::fuzz::check_import_result("verbose", dnnbench::import_onednn_verbose_text(text, "fuzz.log"),
                                        "fuzz.log");
  } catch (const std::exception& e) {
    dnnbench::fuzz::fail("verbose", std::string("an exception escaped: ") + e.what());
  }
  return 0;
}
