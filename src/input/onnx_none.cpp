// Built when libonnx is not found: ONNX models are refused with the reason (import.cpp).
#include "graph/errors.hpp"
#include "input/import.hpp"

namespace dnnbench {

bool onnx_import_available() {
  return false;
}

ImportResult import_onnx_file(const std::filesystem::path& path, const ImportOptions&) {
  throw InputError(path.string(), "", "this dnnbench was built without the ONNX importer (libonnx-dev)");
}

}  // namespace dnnbench
