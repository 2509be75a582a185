// Unit tests of the tuning database (report/tuning_db.hpp): records from results, the merge
// (identical records once, conflicting winners all kept), reading, and the --plans-from lookup.
#include "report/tuning_db.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/json_report.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

Stats stats_at(double median) {
  Stats s;
  s.n = 10;
  s.median = s.mean = s.min = s.max = median;
  s.median_ci_lo = median * 0.99;
  s.median_ci_hi = median * 1.01;
  return s;
}

// A suite with one oracle row whose winner has two knobs in a non-alphabetical order.
SuiteResult oracle_suite(const std::string& winner_value = "7") {
  SuiteResult suite;
  suite.metadata = {
      {"timestamp_utc", "2026-12-01T10:00:00Z"},
      {"tool", {{"version", "0.1"}, {"git_revision", "abc"}}},
      {"host", {{"hostname", "h"}, {"cpu_model", "Some CPU"}}},
      {"providers",
       {{"cudnn",
         {{"version", "9.14.0"},
          {"device",
           {{"device", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"cuda_driver_version", "13.0"}}}}}}}};
  GraphResult g;
  g.graph_name = "conv";
  g.graph_path = "graphs/conv.json";
  g.content_hash = "fnv1a64:0123456789abcdef";
  RowResult r;
  r.provider = "cudnn";
  r.engine_id = "12";
  r.plan_name = "12_k2=1";
  r.plan_knobs = {{"k2", "1"}};
  r.gpu_kernel_stats = stats_at(2.0);
  r.host_stats = stats_at(2.1);
  r.fp32_math = "strict";
  OracleResult o;
  o.search = "searched";
  o.verdict = "faster-plan";
  o.plan_name = "12_k2=" + winner_value + "_k13=1";
  o.knobs = {{"k13", "1"}, {"k2", winner_value}};  // as a results object reads back: sorted
  o.candidates = {
      {"12_k2=1", true, {{"k2", "1"}}, 2.0, std::nullopt, std::nullopt, false, false},
      {o.plan_name,
       true,
       {{"k2", winner_value}, {"k13", "1"}},
       1.5,
       std::nullopt,
       std::nullopt,
       false,
       false},
      {"12_k2=9", false, {{"k2", "9"}}, std::nullopt, "Unsupported: no", std::nullopt, false, false}};
  o.gpu_kernel_stats = stats_at(1.5);
  r.oracle = o;
  PairedDelta d;
  d.basis = "gpu_kernel";
  d.speedup = 1.33;
  d.ci_lo = 1.30;
  d.ci_hi = 1.36;
  d.significant = true;
  r.oracle_delta = d;
  g.results.push_back(r);
  RowResult no_oracle = r;
  no_oracle.engine_id = "3";
  no_oracle.oracle.reset();
  g.results.push_back(no_oracle);
  suite.graphs.push_back(g);
  return suite;
}

TEST(TuningDb, RecordsHoldTheKeyThePlansInOrderAndTheSignificance) {
  const auto records = tuning_records(oracle_suite());
  ASSERT_EQ(records.size(), 1u) << "only rows with an oracle result make records";
  const auto& r = records[0];
  EXPECT_NO_THROW(check_tuning_record(r));
  EXPECT_EQ(r["key"]["graph_hash"], "fnv1a64:0123456789abcdef");
  EXPECT_EQ(r["key"]["device"], "NVIDIA H200");
  EXPECT_EQ(r["key"]["compute_capability"], "9.0");
  EXPECT_EQ(r["key"]["driver"], "13.0");
  EXPECT_EQ(r["key"]["library_version"], "9.14.0");
  EXPECT_EQ(r["key"]["fp32_math"], "strict");
  EXPECT_EQ(r["basis"], "gpu_kernel");
  EXPECT_EQ(r["heuristic"]["stats"]["median_ms"], 2.0);
  // The winner's knobs keep the plan's order (the candidate's), not the sorted results object's.
  EXPECT_EQ(r["winner"]["knobs"], json::parse(R"([["k2","7"],["k13","1"]])"));
  EXPECT_EQ(r["winner"]["sweep_median_ms"], 1.5);
  EXPECT_EQ(r["candidates"].size(), 3u);
  EXPECT_EQ(r["candidates"][2]["error"], "Unsupported: no");
  EXPECT_EQ(r["significance"]["ci95"], json::parse("[1.30, 1.36]"));
}

TEST(TuningDb, HostProvidersAreKeyedByTheCpuModelWithoutCapabilityOrDriver) {
  auto suite = oracle_suite();
  suite.metadata["providers"] = {{"onednn", {{"version", "2.7"}}}};
  suite.graphs[0].results[0].provider = "onednn";
  const auto records = tuning_records(suite);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["key"]["device"], "Some CPU");
  EXPECT_TRUE(records[0]["key"]["compute_capability"].is_null());
  EXPECT_TRUE(records[0]["key"]["driver"].is_null());
}

TEST(TuningMergeLogic, IdenticalRecordsAreKeptOnce) {
  const auto a = tuning_records(oracle_suite());
  const auto merged = merge_tuning_records(a, a);
  EXPECT_EQ(merged.records.size(), 1u);
  EXPECT_EQ(merged.duplicates, 1u);
  EXPECT_TRUE(merged.conflicts.empty());
}

TEST(TuningMergeLogic, ConflictingWinnersOfOneKeyAreBothKeptWithTheirCIs) {
  const auto a = tuning_records(oracle_suite("7"));
  auto b = tuning_records(oracle_suite("5"));
  b[0]["significance"]["ci95"] = json::parse("[1.10, 1.20]");
  b[0]["significance"]["speedup"] = 1.15;
  ASSERT_EQ(tuning_key_text(a[0]), tuning_key_text(b[0]));
  const auto merged = merge_tuning_records(a, b);
  ASSERT_EQ(merged.records.size(), 2u) << "neither winner may overwrite the other";
  EXPECT_EQ(merged.records[0]["winner"]["plan_name"], "12_k2=7_k13=1");
  EXPECT_EQ(merged.records[1]["winner"]["plan_name"], "12_k2=5_k13=1");
  ASSERT_EQ(merged.conflicts.size(), 1u);
  const auto& line = merged.conflicts[0];
  EXPECT_NE(line.find("12_k2=7_k13=1 (1.330x [1.300, 1.360]"), std::string::npos) << line;
  EXPECT_NE(line.find("12_k2=5_k13=1 (1.150x [1.100, 1.200]"), std::string::npos) << line;
}

TEST(TuningMergeLogic, SameWinnerMeasuredTwiceIsKeptTwiceWithoutConflict) {
  const auto a = tuning_records(oracle_suite());
  auto b = a;
  b[0]["recorded"]["timestamp_utc"] = "2026-12-02T10:00:00Z";
  b[0]["winner"]["stats"]["median_ms"] = 1.4;
  const auto merged = merge_tuning_records(a, b);
  EXPECT_EQ(merged.records.size(), 2u);
  EXPECT_EQ(merged.duplicates, 0u);
  EXPECT_TRUE(merged.conflicts.empty());
}

TEST(TuningMergeLogic, OtherKeysNeverConflict) {
  const auto a = tuning_records(oracle_suite("7"));
  auto b = tuning_records(oracle_suite("5"));
  b[0]["key"]["library_version"] = "9.19.0";
  const auto merged = merge_tuning_records(a, b);
  EXPECT_EQ(merged.records.size(), 2u);
  EXPECT_TRUE(merged.conflicts.empty());
}

TEST(TuningFile, RoundTripsAndNamesTheBadLine) {
  const auto dir = std::filesystem::temp_directory_path() / "dnnbench-tuning-db-test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "plans.jsonl").string();
  const auto records = tuning_records(oracle_suite());
  write_tuning_file(path, records);
  EXPECT_EQ(read_tuning_file(path), records);
  {
    std::ofstream out(path, std::ios::app);
    out << "\n{\"format\": \"something-else\"}\n";
  }
  try {
    read_tuning_file(path);
    FAIL() << "a record of another format must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":3: not a dnnbench tuning record: record: format"),
              std::string::npos)
        << e.what();
  }
  {
    std::ofstream out(path, std::ios::trunc);
    out << "{not json\n";
  }
  EXPECT_THROW(
      {
        try {
          read_tuning_file(path);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find(":1: not JSON"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
  std::filesystem::remove_all(dir);
}

TEST(TuningFile, LookupPrefersTheSameDeviceThenTheNewest) {
  const auto dir = std::filesystem::temp_directory_path() / "dnnbench-tuning-db-lookup";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "plans.jsonl").string();
  auto a = tuning_records(oracle_suite("7"))[0];
  auto b = tuning_records(oracle_suite("5"))[0];
  b["recorded"]["timestamp_utc"] = "2026-12-05T00:00:00Z";
  auto other = tuning_records(oracle_suite("3"))[0];
  other["key"]["device"] = "NVIDIA A100";
  other["recorded"]["timestamp_utc"] = "2027-01-01T00:00:00Z";
  write_tuning_file(path, {a, other, b});
  const auto db = TuningDb::read(path);
  const auto found = db.find("fnv1a64:0123456789abcdef", "cudnn", "12", std::string("strict"), "NVIDIA H200");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ((*found[0])["winner"]["plan_name"], "12_k2=5_k13=1");
  EXPECT_EQ((*found[1])["winner"]["plan_name"], "12_k2=7_k13=1");
  EXPECT_EQ((*found[2])["key"]["device"], "NVIDIA A100");
  EXPECT_TRUE(db.find("fnv1a64:0123456789abcdef", "cudnn", "12", std::nullopt, "NVIDIA H200").empty())
      << "the fp32 math policy is part of the key";
  EXPECT_EQ(db.engines_for("fnv1a64:0123456789abcdef", "cudnn"), std::vector<std::string>{"12"});
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dnnbench
