#include "graph/errors.hpp"

namespace dnnbench {
namespace {

std::string format_input_error(const std::string& file, const std::string& path, const std::string& message) {
  std::string text = file.empty() ? std::string("<input>") : file;
  if (!path.empty()) text += ": at " + path;
  return text + ": " + message;
}

}  // namespace

InputError::InputError(std::string file, std::string json_path, std::string message)
    : std::runtime_error(format_input_error(file, json_path, message)),
      file_(std::move(file)),
      json_path_(std::move(json_path)),
      message_(std::move(message)) {}

}  // namespace dnnbench
