#include "run/journal.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "report/json_report.hpp"

namespace dnnbench {
namespace {

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "dnnbench-journal-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    path_ = dir_ / "run.journal.jsonl";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void append_raw(const std::string& text) {
    std::ofstream out(path_, std::ios::app);
    out << text;
  }

  std::filesystem::path dir_, path_;
};

GraphResult graph_named(const std::string& path) {
  GraphResult g;
  g.graph_name = "g";
  g.graph_path = path;
  g.content_hash = "fnv1a64:0123456789abcdef";
  return g;
}

RowResult row_of(const std::string& engine, RowStatus status = RowStatus::success) {
  RowResult row;
  row.provider = "onednn";
  row.engine_id = engine;
  row.status = status;
  row.best_plan = PlanRef{engine, {{"k", "1"}}, 0.5};
  return row;
}

TEST_F(JournalTest, RowsAndGraphsReadBack) {
  auto a = graph_named("a.json");
  const EngineInfo e1{"e1", "engine one", {}};
  {
    JournalWriter writer(path_, {{"seed", 42}}, false);
    writer.row_started(a, "onednn", e1);
    writer.row_finished(a, row_of("e1"));
    a.results.push_back(row_of("e1"));
    writer.graph_finished(a);
    auto b = graph_named("b.json");
    writer.row_finished(b, row_of("e1"));
    writer.row_started(b, "onednn", {"e2", "engine two", {}});
  }
  const auto journal = read_journal(path_);
  EXPECT_EQ(journal.options, (nlohmann::json{{"seed", 42}}));
  EXPECT_EQ(journal.rows, 2u);
  const auto* ga = journal.find("a.json", "fnv1a64:0123456789abcdef");
  ASSERT_NE(ga, nullptr);
  ASSERT_TRUE(ga->finished);
  EXPECT_EQ(graph_to_json(*ga->finished), graph_to_json(a));
  EXPECT_FALSE(ga->unfinished);
  const auto* gb = journal.find("b.json", "fnv1a64:0123456789abcdef");
  ASSERT_NE(gb, nullptr);
  EXPECT_FALSE(gb->finished);
  ASSERT_NE(gb->rows.find("onednn", "e1"), nullptr);
  EXPECT_EQ(gb->rows.find("onednn", "e1")->best_plan->median_ms, 0.5);
  ASSERT_TRUE(gb->unfinished);
  EXPECT_EQ(gb->unfinished->engine_id, "e2");
  EXPECT_EQ(journal.find("a.json", "fnv1a64:ffffffffffffffff"), nullptr) << "other content, other graph";
}

TEST_F(JournalTest, ALastLineCutShortIsIgnored) {
  {
    JournalWriter writer(path_, nlohmann::json::object(), false);
    writer.row_finished(graph_named("a.json"), row_of("e1"));
  }
  append_raw(R"({"event": "row", "graph_pa)");
  EXPECT_EQ(read_journal(path_).rows, 1u);
}

TEST_F(JournalTest, ABadLineElsewhereNamesFileAndLine) {
  { JournalWriter writer(path_, nlohmann::json::object(), false); }
  append_raw("not json\n{\"event\": \"row\"}\n");
  try {
    read_journal(path_);
    FAIL() << "a bad line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path_.string() + ":2: not a JSON line"), std::string::npos)
        << e.what();
  }
}

TEST_F(JournalTest, RefusesAFileThatIsNotAJournal) {
  append_raw("{\"schema_version\": 1}\n");
  EXPECT_THROW(read_journal(path_), std::runtime_error);
  std::filesystem::remove(path_);
  append_raw("garbage\n");  // a bad first line is never taken for a line cut short
  EXPECT_THROW(read_journal(path_), std::runtime_error);
}

TEST_F(JournalTest, AppendKeepsEventsAndWritesOneHeader) {
  { JournalWriter(path_, {{"seed", 1}}, false).row_finished(graph_named("a.json"), row_of("e1")); }
  { JournalWriter(path_, {{"seed", 1}}, true).row_finished(graph_named("a.json"), row_of("e2")); }
  EXPECT_EQ(read_journal(path_).rows, 2u);
  { JournalWriter(path_, {{"seed", 1}}, false); }
  EXPECT_EQ(read_journal(path_).rows, 0u) << "without append the journal starts over";
}

TEST_F(JournalTest, TheLastRowOfAKeyWins) {
  {
    JournalWriter writer(path_, nlohmann::json::object(), false);
    writer.row_finished(graph_named("a.json"), row_of("e1", RowStatus::error));
    writer.row_finished(graph_named("a.json"), row_of("e1", RowStatus::success));
  }
  const auto journal = read_journal(path_);  // outlives `g`, which points into it
  const auto* g = journal.find("a.json", "fnv1a64:0123456789abcdef");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->rows.find("onednn", "e1")->status, RowStatus::success);
  EXPECT_EQ(g->row_order.size(), 1u);
}

TEST(OptionsFingerprint, NamesEveryDifference) {
  RunOptions a;
  a.providers = {"reference"};
  RunOptions b = a;
  EXPECT_TRUE(fingerprint_differences(options_fingerprint(a), options_fingerprint(b)).empty());
  b.seed = 7;
  b.oracle.max_plans = 3;
  const auto diff = fingerprint_differences(options_fingerprint(a), options_fingerprint(b));
  ASSERT_EQ(diff.size(), 2u);
  EXPECT_EQ(diff[0], "oracle.max_plans: 32 -> 3");
  EXPECT_EQ(diff[1], "seed: 42 -> 7");
  b = a;
  b.output_path = "elsewhere.json";  // where results go changes no result
  EXPECT_TRUE(fingerprint_differences(options_fingerprint(a), options_fingerprint(b)).empty());
}

}  // namespace
}  // namespace dnnbench
