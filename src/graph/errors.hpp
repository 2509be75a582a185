#pragma once
// InputError: bad input, said in one line: which file, where in it (JSON path), what is wrong.
#include <stdexcept>
#include <string>

namespace dnnbench {

class InputError : public std::runtime_error {
 public:
  // `json_path` like "nodes[0].parameters.stride[0]"; empty when the error is about the whole file.
  InputError(std::string file, std::string json_path, std::string message);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, json_path_, message_;
};

}  // namespace dnnbench
