#pragma once
// Console output of --plans-from (report/tuning_db.hpp) and --profile (isolate/profiler.hpp): the
// per-row line under a graph's table and the verbose blocks. Reads results only.
#include <ostream>

#include "report/results.hpp"

namespace dnnbench {

// One line per row of the graph that re-timed stored plans: stored winner vs today's pick.
void print_plans_from_lines(std::ostream& out, const GraphResult& graph);
// The -v block: each stored plan re-timed, with its delta, stored and today's times.
void print_plans_from_details(std::ostream& out, const RowResult& row);
// The -v block of --profile: per kernel, ncu's figures, and how its kernel sum compares with
// the row's CUPTI kernel sum.
void print_profile_details(std::ostream& out, const RowResult& row);
// After a --plans-from run: the table "stored winner vs today's pick", one line per row.
void print_plans_from_summary(std::ostream& out, const SuiteResult& suite);

}  // namespace dnnbench
