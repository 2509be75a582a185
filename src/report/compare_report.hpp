#pragma once
// Sinks of a comparison (report/compare.hpp): a console table, JSON and CSV.
#include <ostream>

#include <nlohmann/json.hpp>

#include "report/compare.hpp"

namespace dnnbench {

void print_comparison(std::ostream& out, const Comparison& comparison);
nlohmann::json comparison_to_json(const Comparison& comparison);
void write_comparison_csv(std::ostream& out, const Comparison& comparison);

}  // namespace dnnbench
