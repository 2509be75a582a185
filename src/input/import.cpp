#include "input/import.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "graph/errors.hpp"
#include "input/archive.hpp"
#include "input/benchdnn.hpp"
#include "input/cudnn_api_log.hpp"
#include "input/log_lines.hpp"
#include "input/miopen_driver.hpp"
#include "input/onednn_verbose.hpp"
#include "input/text_lines.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

// Text sources are command files of a few thousand lines at most; reading more than this to
// recognise one would only mean a large file that is something else.
constexpr std::size_t kSniffBytes = 64 * 1024;

std::string read_text(const fs::path& path, std::size_t limit = std::string::npos) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", std::string("cannot open the file: ") + std::strerror(errno));
  std::string text;
  if (limit == std::string::npos) {
    std::ostringstream all;
    all << in.rdbuf();
    text = all.str();
  } else {
    text.resize(limit);
    in.read(text.data(), static_cast<std::streamsize>(limit));
    text.resize(static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad())
    throw InputError(path.string(), "", std::string("cannot read the file: ") + std::strerror(errno));
  return text;
}

}  // namespace

std::optional<SourceFormat> detect_source_format(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  const std::string ext = path.extension().string();
  if (ext == ".onnx") return SourceFormat::onnx;
  // A compressed log (verbose.log.gz): its first lines, decompressed.
  if (is_compressed_file_path(path)) {
    std::istringstream head(log_head(path, kSniffBytes));
    for (std::string line; std::getline(head, line);) {
      if (is_onednn_verbose_line(line)) return SourceFormat::onednn_verbose;
      if (is_cudnn_api_log_line(line)) return SourceFormat::cudnn_api_log;
    }
    return std::nullopt;
  }
  if (ext == ".json" || ext == ".tar" || ext == ".gz" || ext == ".tgz" || ext == ".xz" || ext == ".bz2" ||
      ext == ".zip")
    return std::nullopt;
  std::string head;
  try {
    head = read_text(path, kSniffBytes);
  } catch (const InputError&) {
    return std::nullopt;
  }
  if (head.find('\0') != std::string::npos) return std::nullopt;  // binary
  std::istringstream raw(head);
  for (std::string line; std::getline(raw, line);) {
    if (is_onednn_verbose_line(line)) return SourceFormat::onednn_verbose;
    if (is_cudnn_api_log_line(line)) return SourceFormat::cudnn_api_log;
  }
  const auto lines = source_lines(head);
  if (lines.empty()) return std::nullopt;
  if (looks_like_miopen_driver_line(lines.front().tokens)) return SourceFormat::miopen_driver;
  if (looks_like_benchdnn_line(lines.front().tokens)) return SourceFormat::benchdnn;
  return std::nullopt;
}

ImportResult import_source(const fs::path& path, SourceFormat format, const ImportOptions& options) {
  switch (format) {
    case SourceFormat::miopen_driver:
      return import_miopen_driver_text(read_text(path), path.string());
    case SourceFormat::benchdnn:
      return import_benchdnn_file(path);
    case SourceFormat::onednn_verbose:
      return import_onednn_verbose_file(path);
    case SourceFormat::cudnn_api_log:
      return import_cudnn_api_log_file(path);
    case SourceFormat::onnx:
      if (!onnx_import_available())
        throw InputError(path.string(), "",
                         "this dnnbench was built without the ONNX importer (libonnx-dev was not found at "
                         "configure time; scripts/setup installs it)");
      return import_onnx_file(path, options);
  }
  return {};
}

std::pair<std::string, std::int64_t> parse_dim_assignment(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw std::invalid_argument(fmt::format("--dim {}: expected NAME=VALUE, e.g. batch=8", text));
  const std::string value = text.substr(eq + 1);
  std::int64_t number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end != value.data() + value.size() || number <= 0)
    throw std::invalid_argument(fmt::format("--dim {}: the value must be a positive integer", text));
  return {text.substr(0, eq), number};
}

}  // namespace dnnbench
