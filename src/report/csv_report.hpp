#pragma once
// Results as CSV, one line per row (`report RESULTS.json --csv FILE`, `run --csv FILE`); the
// columns are documented in docs/results.md.
#include <ostream>
#include <string>
#include <vector>

#include "report/results.hpp"

namespace dnnbench {

std::vector<std::string> results_csv_columns();
void write_results_csv(std::ostream& out, const SuiteResult& suite);
// Writes atomically (a temporary file, then rename); throws std::runtime_error naming the path.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace dnnbench
