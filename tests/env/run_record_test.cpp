// The run record: one typed writer for what a run records about how it ran.
#include "env/run_record.hpp"

#include <gtest/gtest.h>

#include "report/results.hpp"

namespace dnnbench {
namespace {

TEST(RunRecord, APlainRunWritesEveryOptionItOwnsAndItsBlocks) {
  RunRecord r;
  r.timing = RunRecord::Timing{"2026-12-04T10:00:00Z", "2026-12-04T10:01:00Z", 60.5};
  r.host_conditions = {{"disturbed", false}};
  r.warnings = {"w"};
  r.isolation.mode = "graph";
  r.isolation.timeout_s = 300;
  r.isolation.timeout_basis = "derived from the caps";
  r.isolation.children_started = 1;
  r.isolation.compile_ahead_children = 0;
  r.journal = "r.json.journal.jsonl";
  nlohmann::json meta = {{"options", {{"seed", 42}}}, {"host", {{"name", "h"}}}};
  write_run_record(r, meta);
  EXPECT_EQ(meta["options"]["seed"], 42);  // collect_metadata's own keys stay
  EXPECT_EQ(meta["host"]["name"], "h");
  EXPECT_EQ(meta["run_timing"]["elapsed_s"], 60.5);
  EXPECT_EQ(meta["host_conditions"]["disturbed"], false);
  EXPECT_EQ(meta["warnings"], nlohmann::json::array({"w"}));
  EXPECT_EQ(meta["options"]["isolate"], "graph");
  EXPECT_EQ(meta["options"]["timeout_s"], 300.0);
  EXPECT_EQ(meta["options"]["timeout_basis"], "derived from the caps");
  EXPECT_EQ(meta["isolation"]["children_started"], 1);
  EXPECT_EQ(meta["options"]["journal"], "r.json.journal.jsonl");
  EXPECT_TRUE(meta["options"]["resumed_rows"].is_null());
  for (const char* absent : {"shard", "repeat_pass", "repeat_passes"})
    EXPECT_FALSE(meta.contains(absent)) << absent;
  EXPECT_FALSE(meta["options"].contains("profile"));
}

TEST(RunRecord, ARunWithoutIsolationOrJournalWritesNullsNotNothing) {
  nlohmann::json meta = nlohmann::json::object();
  write_run_record(RunRecord{}, meta);
  EXPECT_EQ(meta["options"]["isolate"], "none");
  for (const char* key : {"timeout_s", "timeout_basis", "journal", "resumed_rows"}) {
    ASSERT_TRUE(meta["options"].contains(key)) << key;
    EXPECT_TRUE(meta["options"][key].is_null()) << key;
  }
  EXPECT_FALSE(meta.contains("isolation"));
  EXPECT_FALSE(meta.contains("run_timing"));
  EXPECT_FALSE(meta.contains("host_conditions"));
  EXPECT_EQ(meta["warnings"], nlohmann::json::array());
}

TEST(RunRecord, RepeatPassesShardAndProfile) {
  RunRecord r;
  r.repeat_passes = RunRecord::RepeatPasses{2, {}};
  RunRecord::Pass kept;
  kept.pass = 1;
  kept.pid = 123;
  kept.results = "r.json.pass1.json";
  kept.journal = "r.json.pass1.journal.jsonl";
  kept.complete = true;
  kept.elapsed_s = 4;
  kept.end = "exited with status 0";
  RunRecord::Pass reused;
  reused.pass = 2;
  reused.reused = true;
  r.repeat_passes->passes = {kept, reused};
  r.shard = RunRecord::Shard{2, 3, 10, {1, 4, 7}};
  r.repeat_pass = RunRecord::RepeatPassOf{2, 77};
  r.profile = RunRecord::Profile{"ncu", {"SpeedOfLight"}, "prof", "/usr/bin/ncu", 3};
  nlohmann::json meta;
  write_run_record(r, meta);
  const auto& passes = meta["repeat_passes"];
  EXPECT_EQ(passes["method"], kRepeatMethodPasses);
  EXPECT_EQ(passes["count"], 2);
  ASSERT_EQ(passes["passes"].size(), 2u);
  EXPECT_EQ(passes["passes"][0]["pid"], 123);
  EXPECT_EQ(passes["passes"][0]["end"], "exited with status 0");
  EXPECT_TRUE(passes["passes"][1]["pid"].is_null());
  EXPECT_TRUE(passes["passes"][1]["results"].is_null());
  EXPECT_TRUE(passes["passes"][1]["end"].is_null());
  EXPECT_EQ(passes["passes"][1]["reused"], true);
  EXPECT_EQ(meta["shard"]["input_indices"], nlohmann::json::array({1, 4, 7}));
  EXPECT_EQ(meta["repeat_pass"]["pid"], 77);
  EXPECT_EQ(meta["options"]["profile"]["sections"], nlohmann::json::array({"SpeedOfLight"}));
}

// The merged --repeat run reports its first pass's isolation, read back from that pass's results.
TEST(RunRecord, IsolationReadsBackFromAPassesMetadata) {
  RunRecord pass;
  pass.isolation.mode = "row";
  pass.isolation.timeout_s = 12.5;
  pass.isolation.timeout_basis = "--timeout-s";
  pass.isolation.children_started = 9;
  pass.isolation.compile_ahead_children = 2;
  nlohmann::json meta;
  write_run_record(pass, meta);
  const auto back = isolation_from_metadata(nlohmann::json::parse(meta.dump()));
  EXPECT_EQ(back.mode, "row");
  EXPECT_EQ(back.timeout_s, 12.5);
  EXPECT_EQ(back.timeout_basis, "--timeout-s");
  EXPECT_EQ(back.children_started, 9u);
  EXPECT_EQ(back.compile_ahead_children, 2u);
  const auto none = isolation_from_metadata(nlohmann::json::object());
  EXPECT_EQ(none.mode, "none");
  EXPECT_FALSE(none.timeout_s);
  EXPECT_FALSE(none.children_started);
}

}  // namespace
}  // namespace dnnbench
