#pragma once
// InputError: bad input, said in one line: which file, where in it (JSON path), what is wrong.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dnnbench {

class InputError : public std::runtime_error {
 public:
  // `json_path` like "nodes[0].parameters.stride[0]"; empty when the error is about the whole file.
  // The three parts are made printable (printable_text) so that the error stays one line of
  // valid UTF-8 whatever names the file used, and each is cut after 1000 characters.
  InputError(std::string file, std::string json_path, std::string message);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, json_path_, message_;
};

// `text` with control characters written as escapes (\n, \t, \x01) and bytes that are not valid
// UTF-8 as \xNN: names taken from files and archives can hold both, and a message must stay one
// line and must be writable into the JSON results.
std::string printable_text(std::string_view text);

// The candidate closest to `word` when it is near enough to be a typo of it (a few edits, case
// ignored), else "": for "did you mean" in messages.
std::string closest_match(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace dnnbench
