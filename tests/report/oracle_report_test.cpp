// The console's oracle details of a row (-v): which rung each candidate reached; the run's
// footer: where the oracle's time went.
#include <gtest/gtest.h>

#include <sstream>

#include "report/oracle_report.hpp"

namespace dnnbench {
namespace {

OracleCandidate candidate(const std::string& name, double median, bool screened_out, bool finalist,
                          bool leader) {
  return {name, true, {}, median, std::nullopt, median, screened_out, finalist, leader};
}

// A cuDNN row whose oracle searched and reached `verdict`; the test fills in the rest.
RowResult searched_row(const std::string& verdict) {
  RowResult row;
  row.provider = "cudnn";
  row.engine_id = "eng0";
  row.oracle = OracleResult{};
  row.oracle->search = "searched";
  row.oracle->verdict = verdict;
  return row;
}

TEST(OracleReport, DetailsSayWhichRungEachCandidateReached) {
  auto row = searched_row("faster-plan");
  auto& o = *row.oracle;
  o.plan_name = "b";
  o.candidates = {candidate("h", 3.0, false, true, true), candidate("a", 9.0, true, false, false),
                  candidate("b", 1.0, false, true, true), candidate("c", 2.0, false, true, true),
                  candidate("d", 4.0, false, true, false)};
  o.candidates_total = 5;
  o.candidates_benchmarked = 5;
  o.screened_out = 1;
  o.narrowed_out = 1;
  std::ostringstream out;
  print_oracle_details(out, row);
  const auto text = out.str();
  EXPECT_NE(text.find("rungs: 1 screened out after a few short batches, 4 finalists timed briefly, 3 leaders "
                      "measured fully"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("9.0000 ms (screened out)"), std::string::npos) << text;
  EXPECT_NE(text.find("4.0000 ms (finalist, timed briefly)"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.0000 ms ("), std::string::npos) << "a leader's figure is the full measurement";
}

// The footer sums the rows' time split and, apart, the graphs' regret comparisons (outside any
// row: on the H200 6.9 s of a 150 s run, invisible before).
TEST(OracleReport, FooterSaysWhereTheOraclesTimeWent) {
  SuiteResult suite;
  for (int i = 0; i < 2; ++i) {
    GraphResult g;
    g.graph_name = "g" + std::to_string(i);
    g.stage_ms["regret"] = 1500;
    auto row = searched_row("heuristic-best");
    auto& split = row.oracle->time_split;
    split.build_ms = 100;
    split.screen_ms = 2000;
    split.final_ms = 1000;
    split.paired_ms = 400;
    split.replication_ms = 250;
    g.results.push_back(row);
    suite.graphs.push_back(g);
  }
  std::ostringstream out;
  print_oracle_footer(out, suite);
  const auto text = out.str();
  EXPECT_NE(text.find("Oracle: 0 of 2 rows have a significant gap"), std::string::npos) << text;
  EXPECT_NE(
      text.find("time: 7.5 s in all: plan builds 0.2 s, screening 4.0 s, finalists 2.0 s, paired re-timing "
                "0.8 s, replication 0.5 s; and the graphs' regret (pick against best) 3.0 s"),
      std::string::npos)
      << text;
}

}  // namespace
}  // namespace dnnbench
