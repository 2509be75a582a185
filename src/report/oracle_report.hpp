#pragma once
// Console output of the oracle: the table column, the verbose `Oracle:` block, the graph regret
// line and the run's footer. Reads results only.
#include <ostream>
#include <string>

#include "report/results.hpp"

namespace dnnbench {

bool graph_has_oracle(const GraphResult& graph);
// "1.23x [1.20, 1.26]", "~1.00x (n.s.)", "no-search", "=heuristic", "oracle error", "-".
std::string oracle_cell(const RowResult& row);
void print_oracle_details(std::ostream& out, const RowResult& row);
void print_graph_regret(std::ostream& out, const GraphResult& graph);
// Geometric mean of significant speedups, the count of rows with a significant gap, top 10 gaps.
void print_oracle_footer(std::ostream& out, const SuiteResult& suite);
std::string speedup_text(const PairedDelta& delta);

}  // namespace dnnbench
