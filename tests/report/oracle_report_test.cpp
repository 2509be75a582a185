// The console's oracle details of a row (-v): which rung each candidate reached.
#include <gtest/gtest.h>

#include <sstream>

#include "report/oracle_report.hpp"

namespace dnnbench {
namespace {

OracleCandidate candidate(const std::string& name, double median, bool screened_out, bool finalist,
                          bool leader) {
  return {name, true, {}, median, std::nullopt, median, screened_out, finalist, leader};
}

TEST(OracleReport, DetailsSayWhichRungEachCandidateReached) {
  RowResult row;
  row.provider = "cudnn";
  row.engine_id = "eng0";
  OracleResult o;
  o.search = "searched";
  o.verdict = "faster-plan";
  o.plan_name = "b";
  o.candidates = {candidate("h", 3.0, false, true, true), candidate("a", 9.0, true, false, false),
                  candidate("b", 1.0, false, true, true), candidate("c", 2.0, false, true, true),
                  candidate("d", 4.0, false, true, false)};
  o.candidates_total = 5;
  o.candidates_benchmarked = 5;
  o.screened_out = 1;
  o.narrowed_out = 1;
  row.oracle = o;
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

}  // namespace
}  // namespace dnnbench
