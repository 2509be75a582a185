// Logs as lines, plain or compressed: the real ResNet-18 capture imports the same from its gzip
// and xz forms as from the plain file, a compressed log cut short keeps what came before and says
// where it ends, and line splitting holds across chunks.
#include "input/log_lines.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "graph/errors.hpp"
#include "input/archive.hpp"
#include "input/import.hpp"
#include "input/onednn_verbose.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

fs::path capture() {
  return fs::path(DNNBENCH_SOURCE_DIR) / "tests/data/onednn-verbose/resnet18-train-torch1.13.log";
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One stream compressed with libarchive's raw writer (what gzip or xz writes for one file).
void write_compressed(const fs::path& path, const std::string& text, int (*add_filter)(struct archive*)) {
  struct archive* a = archive_write_new();
  add_filter(a);
  archive_write_set_format_raw(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
  struct archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, "log");
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_size(entry, static_cast<la_int64_t>(text.size()));
  ASSERT_EQ(archive_write_header(a, entry), ARCHIVE_OK) << archive_error_string(a);
  ASSERT_EQ(archive_write_data(a, text.data(), text.size()), static_cast<la_ssize_t>(text.size()));
  archive_entry_free(entry);
  archive_write_close(a);
  archive_write_free(a);
}

class LogLines : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/dnnbench-log-lines-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LogLines, CompressedCapturesImportAsThePlainOne) {
  const auto plain = import_onednn_verbose_file(capture());
  ASSERT_FALSE(plain.graphs.empty());
  const auto text = read_all(capture());
  const std::vector<std::pair<const char*, int (*)(struct archive*)>> forms{
      {"gz/resnet18-train-torch1.13.log.gz", archive_write_add_filter_gzip},
      {"xz/resnet18-train-torch1.13.log.xz", archive_write_add_filter_xz}};
  for (const auto& [name, filter] : forms) {
    const auto file = dir_ / name;
    fs::create_directories(file.parent_path());
    write_compressed(file, text, filter);
    EXPECT_TRUE(is_compressed_file_path(file));
    EXPECT_EQ(detect_source_format(file), SourceFormat::onednn_verbose) << name;
    const auto r = import_onednn_verbose_file(file);
    ASSERT_EQ(r.graphs.size(), plain.graphs.size()) << name;
    for (std::size_t k = 0; k < r.graphs.size(); ++k) {
      EXPECT_EQ(r.graphs[k].graph, plain.graphs[k].graph) << name;
      EXPECT_EQ(r.graphs[k].count, plain.graphs[k].count) << name;
    }
    EXPECT_EQ(r.not_imported.size(), plain.not_imported.size()) << name;
  }
  EXPECT_FALSE(is_compressed_file_path("suite.tar.gz"));  // an archive of graphs
  EXPECT_FALSE(is_compressed_file_path(".gz"));
}

TEST_F(LogLines, ACompressedLogCutShortKeepsWhatCameBeforeAndSaysWhereItEnds) {
  // Long enough that the decompressor hands over whole blocks before the cut.
  std::string text;
  for (int k = 0; k < 40; ++k) text += read_all(capture());
  const auto whole = dir_ / "whole.log.gz";
  write_compressed(whole, text, archive_write_add_filter_gzip);
  const auto bytes = read_all(whole);
  const auto cut = dir_ / "cut.log.gz";
  { std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2); }
  const auto r = import_onednn_verbose_file(cut);
  ASSERT_FALSE(r.graphs.empty());
  std::int64_t executions = 0;
  for (const auto& g : r.graphs) executions += g.count;
  EXPECT_GT(executions, 59);       // more than the first copy's
  EXPECT_LT(executions, 40 * 59);  // less than the whole
  // A stream cut inside its first block keeps nothing, and says so.
  const auto early = dir_ / "early.log.gz";
  { std::ofstream(early, std::ios::binary) << bytes.substr(0, 100); }
  const auto none = import_onednn_verbose_file(early);
  EXPECT_TRUE(none.graphs.empty());
  ASSERT_EQ(none.not_imported.size(), 1u);
  EXPECT_EQ(none.not_imported[0].source, early.string() + ":1");
  ASSERT_FALSE(r.not_imported.empty());
  const auto& end = r.not_imported.back();
  EXPECT_EQ(end.op, "log");
  EXPECT_TRUE(end.source.starts_with(cut.string() + ":")) << end.source;
  EXPECT_NE(end.reason.find("cut short"), std::string::npos) << end.reason;
  EXPECT_NE(end.reason.find("the lines before were imported"), std::string::npos) << end.reason;

  const auto fake = dir_ / "plain-text.log.gz";
  { std::ofstream(fake) << "onednn_verbose,info,not compressed\n"; }
  EXPECT_FALSE(detect_source_format(fake));
  try {
    import_onednn_verbose_file(fake);
    FAIL() << "a .gz that is not compressed was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(fake.string()), std::string::npos) << e.what();
  }
}

TEST_F(LogLines, LinesHoldAcrossChunksAndLongLinesAreCapped) {
  const auto file = dir_ / "lines.txt";
  std::string text = "first\r\nsecond\n\n";
  text += std::string(kMaxLogLineBytes + 10, 'x') + "\n";
  text += std::string(70000, 'y') + "\nlast without newline";
  { std::ofstream(file, std::ios::binary) << text; }
  std::vector<std::string> lines;
  std::vector<std::size_t> numbers;
  std::vector<std::uint64_t> progress;
  const auto end = for_each_log_line(
      file,
      [&](std::string_view line, std::size_t number) {
        lines.emplace_back(line);
        numbers.push_back(number);
      },
      [&](std::uint64_t bytes) { progress.push_back(bytes); });
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0], "first");
  EXPECT_EQ(lines[1], "second");
  EXPECT_EQ(lines[2], "");
  EXPECT_EQ(lines[3].size(), kMaxLogLineBytes);
  EXPECT_EQ(lines[4], std::string(70000, 'y'));
  EXPECT_EQ(lines[5], "last without newline");
  EXPECT_EQ(numbers.back(), 6u);
  EXPECT_EQ(end.lines, 6u);
  EXPECT_EQ(end.bytes, text.size());
  EXPECT_TRUE(end.problem.empty());
  EXPECT_TRUE(progress.empty());  // under 16 MiB
  EXPECT_THROW(for_each_log_line(dir_ / "missing.log", [](std::string_view, std::size_t) {}), InputError);
}

}  // namespace
}  // namespace dnnbench
