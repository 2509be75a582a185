#include "input/cudnn_log_calls.hpp"

#include <cctype>

namespace dnnbench {
namespace {

constexpr std::string_view kHeaderMark = " CuDNN (v";
constexpr std::string_view kCalled = "() called:";

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// A block's lines start with the severity letter and '!': "I!" on the header, "i!" after it.
bool has_prefix(std::string_view line) {
  return line.size() >= 2 && line[1] == '!' &&
         (line[0] == 'I' || line[0] == 'W' || line[0] == 'E' || line[0] == 'i' || line[0] == 'w' ||
          line[0] == 'e');
}

// `Process=4782; Thread=4782; GPU=0; Handle=0x55d1; StreamId=0x0 (defaultStream).`
void read_trailer(std::string_view text, CudnnLogCall& call) {
  while (!text.empty()) {
    const auto end = text.find(';');
    auto item = trim(text.substr(0, end));
    if (!item.empty() && item.back() == '.') item.remove_suffix(1);
    if (const auto eq = item.find('='); eq != std::string_view::npos) {
      const auto key = item.substr(0, eq);
      auto value = std::string(trim(item.substr(eq + 1)));
      if (value == "NULL") value.clear();
      if (key == "Process")
        call.process = value;
      else if (key == "Thread")
        call.thread = value;
      else if (key == "GPU")
        call.gpu = value;
      else if (key == "Handle")
        call.handle = value;
      else if (key == "StreamId")
        call.stream = value.substr(0, value.find(' '));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

std::optional<std::string> CudnnLogCall::field(std::string_view name) const {
  for (const auto& l : lines) {
    const auto text = trim(l);
    if (text.size() > name.size() && text.starts_with(name) && text[name.size()] == ':')
      return std::string(trim(text.substr(name.size() + 1)));
  }
  return std::nullopt;
}

std::optional<std::string> CudnnLogCall::value(std::string_view name) const {
  const auto text = field(name);
  if (!text) return std::nullopt;
  const auto at = text->find("val=");
  if (at == std::string::npos) return std::nullopt;
  std::string_view v(*text);
  v.remove_prefix(at + 4);
  if (!v.empty() && v.back() == ';') v.remove_suffix(1);
  return std::string(v);
}

bool is_cudnn_log_header(std::string_view line) {
  return has_prefix(line) && std::isupper(static_cast<unsigned char>(line[0])) &&
         line.substr(2).starts_with(kHeaderMark) && line.find(kCalled) != std::string_view::npos;
}

void CudnnLogCallReader::add(std::string_view line, std::size_t number) {
  if (is_cudnn_log_header(line)) {
    hand_over();  // a block the next header cuts short
    CudnnLogCall call;
    call.line = number;
    call.severity = line[0];
    auto rest = line.substr(2 + kHeaderMark.size());  // "91900 75) function NAME() called:"
    call.version = std::string(rest.substr(0, rest.find_first_of(" )")));
    if (const auto f = rest.find("function "); f != std::string_view::npos) {
      const auto name = rest.substr(f + 9);
      call.function = std::string(name.substr(0, name.find('(')));
    }
    open_ = std::move(call);
    return;
  }
  if (!open_ || !has_prefix(line)) return;
  const auto text = line.substr(2);
  const auto body = trim(text);
  if (body.starts_with("Time:")) return;
  if (body.starts_with("Process=")) {
    read_trailer(body, *open_);
    open_->complete = true;
    hand_over();
    return;
  }
  open_->lines.emplace_back(text);
}

void CudnnLogCallReader::finish() {
  hand_over();
}

void CudnnLogCallReader::hand_over() {
  if (!open_) return;
  auto call = std::move(*open_);
  open_.reset();
  on_call_(std::move(call));
}

}  // namespace dnnbench
