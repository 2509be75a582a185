#pragma once
// Console output: a table per graph, a verbose block per row (-v), and the run's totals.
// Reads results only; computes no measurements.
#include <ostream>

#include "report/results.hpp"

namespace dnnbench {

void print_graph_table(std::ostream& out, const GraphResult& graph);
void print_row_details(std::ostream& out, const RowResult& row);
void print_suite_summary(std::ostream& out, const SuiteResult& suite);
// "1.23 GFLOP", "512 KiB" style figures.
std::string human_flops(double flops);
std::string human_bytes(double bytes);

}  // namespace dnnbench
