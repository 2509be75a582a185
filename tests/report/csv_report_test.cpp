#include "report/csv_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "report/csv.hpp"

namespace dnnbench {
namespace {

TEST(Csv, QuotesFieldsThatNeedIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_number(std::nullopt), "");
  EXPECT_EQ(csv_number(0.5), "0.5");
}

TEST(Csv, OneLinePerRowWithEveryColumn) {
  SuiteResult suite;
  GraphResult g;
  g.graph_name = "conv";
  g.graph_path = "graphs/conv.json";
  g.content_hash = "fnv1a64:0123";
  g.data_type = "float";
  RowResult ok;
  ok.provider = "onednn";
  ok.engine_id = "jit:avx2";
  ok.host_stats = summarize({1.0, 2.0, 3.0});
  ok.analytical_flops = 2e9;
  ok.correctness = Correctness{};
  RowResult skipped;
  skipped.provider = "onednn";
  skipped.engine_id = "ref:any";
  skipped.status = RowStatus::skipped;
  skipped.skip_reason = "unsupported, with a comma";
  g.results = {ok, skipped};
  suite.graphs.push_back(g);
  std::ostringstream out;
  write_results_csv(out, suite);
  std::istringstream lines(out.str());
  std::string header, first, second, extra;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_FALSE(std::getline(lines, extra));
  const auto columns = results_csv_columns();
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), static_cast<long>(columns.size() - 1));
  EXPECT_EQ(std::count(first.begin(), first.end(), ','), static_cast<long>(columns.size() - 1));
  EXPECT_EQ(
      first.rfind("conv,fnv1a64:0123,graphs/conv.json,float,onednn,jit:avx2,,,success,passed,,,,,,2,", 0), 0u)
      << first;
  EXPECT_NE(second.find("\"unsupported, with a comma\""), std::string::npos);
}

}  // namespace
}  // namespace dnnbench
