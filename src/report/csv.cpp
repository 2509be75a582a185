#include "report/csv.hpp"

#include <fmt/format.h>

#include <cmath>

namespace dnnbench {

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string csv_number(const std::optional<double>& value) {
  if (!value || !std::isfinite(*value)) return "";
  return fmt::format("{:.6g}", *value);
}

void write_csv_line(std::ostream& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out << ',';
    out << csv_field(fields[i]);
  }
  out << '\n';
}

}  // namespace dnnbench
