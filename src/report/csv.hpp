#pragma once
// CSV fields as RFC 4180 writes them: quoted when they hold a comma, quote or line break.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace dnnbench {

std::string csv_field(std::string_view text);
// A number with enough digits to round-trip; empty when absent or not finite.
std::string csv_number(const std::optional<double>& value);
void write_csv_line(std::ostream& out, const std::vector<std::string>& fields);

}  // namespace dnnbench
