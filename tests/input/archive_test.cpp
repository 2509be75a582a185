// Archive extraction: good archives in every format, and hostile ones written with libarchive's
// writer: nothing may be written outside the extraction folder, every refusal names the entry.
#include "input/archive.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "../support/archive_writer.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;
using testing::ArchiveFormat;
using testing::ArchiveMember;
using testing::file_member;
using testing::link_member;
using testing::write_archive;
using Kind = ArchiveMember::Kind;

std::size_t count_files(const fs::path& folder) {
  std::size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(folder))
    if (!e.is_directory()) ++n;
  return n;
}

class ArchiveTest : public ::testing::Test {
 protected:
  fs::path archive(const std::string& name) const { return work_.path() / name; }
  std::vector<ArchiveEntry> extract(const fs::path& path, const ArchiveLimits& limits = {}) {
    return extract_archive(path, into_.path(), limits);
  }
  static const ArchiveEntry* find(const std::vector<ArchiveEntry>& entries, const std::string& name) {
    for (const auto& e : entries)
      if (e.name == name) return &e;
    return nullptr;
  }
  ScopedTempDir work_{"dnnbench-archive-test"};
  ScopedTempDir into_{"dnnbench-archive-into"};
};

TEST(ArchivePaths, RecognizesArchiveSuffixes) {
  for (const char* name : {"a.tar", "a.tar.gz", "a.TGZ", "a.tar.xz", "a.tar.bz2", "a.zip", "a.txz", "a.tbz2"})
    EXPECT_TRUE(is_archive_path(name)) << name;
  for (const char* name : {"a.json", "a.gz", "tar", "a.tar.zst"}) EXPECT_FALSE(is_archive_path(name)) << name;
}

TEST(ArchivePaths, UnsafeEntryPaths) {
  EXPECT_EQ(unsafe_entry_path_reason("graphs/a.json"), "");
  EXPECT_EQ(unsafe_entry_path_reason("./a.json"), "");
  EXPECT_NE(unsafe_entry_path_reason("/etc/passwd"), "");
  EXPECT_NE(unsafe_entry_path_reason("../a.json"), "");
  EXPECT_NE(unsafe_entry_path_reason("a/../../b.json"), "");
  EXPECT_NE(unsafe_entry_path_reason("a/.."), "");
  EXPECT_NE(unsafe_entry_path_reason(""), "");
  EXPECT_NE(unsafe_entry_path_reason("./"), "");
  EXPECT_EQ(unsafe_entry_path_reason("a..b/c..json"), "");  // dots inside names are fine
}

// `tar -czf x.tgz -C dir .`: a `./` folder entry, `./`-prefixed names and folder entries. The
// folders are passed over and the names lose their `./`.
TEST_F(ArchiveTest, DotFolderArchiveOfTarDashC) {
  auto folder = [](std::string name) {
    ArchiveMember m;
    m.name = std::move(name);
    m.kind = Kind::folder;
    return m;
  };
  write_archive(archive("x.tgz"), ArchiveFormat::tar_gz,
                {folder("./"), folder("./sub/"), file_member("./a.json", "{}"),
                 file_member("./sub/b.json", "{}"), file_member("././c.json", "{}")});
  const auto entries = extract(archive("x.tgz"));
  std::vector<std::string> names;
  for (const auto& e : entries) {
    EXPECT_FALSE(e.error) << *e.error;
    names.push_back(e.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a.json", "sub/b.json", "c.json"}));
  ASSERT_NE(find(entries, "sub/b.json"), nullptr);
  EXPECT_TRUE(fs::exists(find(entries, "sub/b.json")->file));
}

TEST_F(ArchiveTest, EveryFormatExtractsItsJsonFilesOnly) {
  const std::vector<std::pair<ArchiveFormat, std::string>> formats = {
      {ArchiveFormat::tar, "g.tar"},         {ArchiveFormat::tar_gz, "g.tar.gz"},
      {ArchiveFormat::tar_gz, "g.tgz"},      {ArchiveFormat::tar_xz, "g.tar.xz"},
      {ArchiveFormat::tar_bz2, "g.tar.bz2"}, {ArchiveFormat::zip, "g.zip"}};
  for (const auto& [format, name] : formats) {
    ScopedTempDir into("dnnbench-archive-format");
    ArchiveMember folder;
    folder.name = "sub/";
    folder.kind = Kind::folder;
    write_archive(archive(name), format,
                  {folder, file_member("sub/a.json", "{\"a\": 1}"), file_member("b.json", "{}"),
                   file_member("README.md", "not a graph")});
    const auto entries = extract_archive(archive(name), into.path(), {});
    ASSERT_EQ(entries.size(), 2u) << name;
    for (const auto& e : entries) {
      EXPECT_FALSE(e.error) << name << ": " << *e.error;
      EXPECT_EQ(e.file.string().rfind(into.path().string(), 0), 0u) << e.file;
    }
    const auto* a = find(entries, "sub/a.json");
    ASSERT_TRUE(a) << name;
    std::ifstream in(a->file);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text, "{\"a\": 1}");
    EXPECT_EQ(count_files(into.path()), 2u) << name;
  }
}

TEST_F(ArchiveTest, PathTraversalAndAbsolutePathsAreRefusedAndNothingLeavesTheFolder) {
  write_archive(archive("evil.tar"), ArchiveFormat::tar,
                {file_member("../escape.json", "{}"), file_member("a/../../escape2.json", "{}"),
                 file_member("/tmp/dnnbench-absolute-escape.json", "{}"), file_member("ok.json", "{}")});
  const auto entries = extract(archive("evil.tar"));
  ASSERT_EQ(entries.size(), 4u);
  for (const char* name : {"../escape.json", "a/../../escape2.json", "/tmp/dnnbench-absolute-escape.json"}) {
    const auto* e = find(entries, name);
    ASSERT_TRUE(e) << name;
    ASSERT_TRUE(e->error) << name;
    EXPECT_NE(e->error->find("evil.tar"), std::string::npos) << *e->error;
    EXPECT_NE(e->error->find(std::string("'") + name + "'"), std::string::npos) << *e->error;
    EXPECT_TRUE(e->file.empty());
  }
  EXPECT_NE(find(entries, "/tmp/dnnbench-absolute-escape.json")->error->find("absolute"), std::string::npos);
  EXPECT_NE(find(entries, "../escape.json")->error->find(".."), std::string::npos);
  EXPECT_FALSE(find(entries, "ok.json")->error);
  EXPECT_FALSE(fs::exists(into_.path().parent_path() / "escape.json"));
  EXPECT_FALSE(fs::exists(work_.path() / "escape.json"));
  EXPECT_FALSE(fs::exists("/tmp/dnnbench-absolute-escape.json"));
  EXPECT_EQ(count_files(into_.path()), 1u);
}

TEST_F(ArchiveTest, LinksDevicesAndFifosAreRefused) {
  write_archive(
      archive("links.tar.gz"), ArchiveFormat::tar_gz,
      {file_member("real.json", "{}"), link_member("sym.json", "/etc/passwd", Kind::symlink),
       link_member("dirlink", "..", Kind::symlink), link_member("hard.json", "real.json", Kind::hardlink),
       link_member("dev.json", "", Kind::char_device), link_member("pipe.json", "", Kind::fifo)});
  const auto entries = extract(archive("links.tar.gz"));
  EXPECT_FALSE(find(entries, "real.json")->error);
  const std::vector<std::pair<std::string, std::string>> refused = {{"sym.json", "symbolic link"},
                                                                    {"dirlink", "symbolic link"},
                                                                    {"hard.json", "hard link"},
                                                                    {"dev.json", "character device"},
                                                                    {"pipe.json", "FIFO"}};
  for (const auto& [name, why] : refused) {
    const auto* e = find(entries, name);
    ASSERT_TRUE(e) << name;
    ASSERT_TRUE(e->error) << name;
    EXPECT_NE(e->error->find(why), std::string::npos) << *e->error;
    EXPECT_NE(e->error->find("links.tar.gz: entry '" + name + "'"), std::string::npos) << *e->error;
  }
  EXPECT_EQ(count_files(into_.path()), 1u);
  for (const auto& e : fs::recursive_directory_iterator(into_.path()))
    EXPECT_FALSE(e.is_symlink()) << e.path();
}

TEST_F(ArchiveTest, MemberOverTheDeclaredSizeCapIsRefusedBeforeWriting) {
  ArchiveMember huge = file_member("huge.json", "");
  huge.zeros = 4 << 20;
  write_archive(archive("huge.tar.gz"), ArchiveFormat::tar_gz, {huge, file_member("small.json", "{}")});
  ArchiveLimits limits;
  limits.max_entry_bytes = 1 << 20;
  const auto entries = extract(archive("huge.tar.gz"), limits);
  const auto* e = find(entries, "huge.json");
  ASSERT_TRUE(e && e->error);
  EXPECT_NE(e->error->find("cap of 1048576 bytes per entry"), std::string::npos) << *e->error;
  EXPECT_FALSE(find(entries, "small.json")->error);  // the run goes on with the next entry
  EXPECT_EQ(count_files(into_.path()), 1u);
}

TEST_F(ArchiveTest, StreamedZipMemberOverTheCapIsRefused) {
  // A zip entry streamed without a size in its local header (the central directory has it, so
  // the declared-size check or the count of written bytes stops it, whichever sees it first).
  ArchiveMember bomb = file_member("bomb.json", "{");
  bomb.zeros = 8 << 20;
  bomb.size_unset = true;
  write_archive(archive("bomb.zip"), ArchiveFormat::zip, {bomb});
  ArchiveLimits limits;
  limits.max_entry_bytes = 1 << 20;
  const auto entries = extract(archive("bomb.zip"), limits);
  const auto* e = find(entries, "bomb.json");
  ASSERT_TRUE(e && e->error);
  EXPECT_NE(e->error->find("1048576"), std::string::npos) << *e->error;
  EXPECT_EQ(count_files(into_.path()), 0u);  // the partial file is removed
}

TEST_F(ArchiveTest, CompressionRatioGuardStopsABomb) {
  ArchiveMember bomb = file_member("bomb.json", "");
  bomb.zeros = 16 << 20;  // gzip packs this ~1000:1
  write_archive(archive("bomb.tar.gz"), ArchiveFormat::tar_gz, {bomb});
  ArchiveLimits limits;
  limits.ratio_floor_bytes = 1 << 20;
  limits.max_ratio = 100;
  const auto entries = extract(archive("bomb.tar.gz"), limits);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_TRUE(entries[0].error);
  EXPECT_NE(entries[0].error->find("100:1"), std::string::npos) << *entries[0].error;
  EXPECT_EQ(count_files(into_.path()), 0u);
}

TEST_F(ArchiveTest, TotalCapStopsExtraction) {
  std::vector<ArchiveMember> members;
  for (int k = 0; k < 5; ++k)
    members.push_back(file_member("g" + std::to_string(k) + ".json", std::string(400, ' ')));
  write_archive(archive("many.tar"), ArchiveFormat::tar, members);
  ArchiveLimits limits;
  limits.max_total_bytes = 1000;
  const auto entries = extract(archive("many.tar"), limits);
  ASSERT_EQ(entries.size(), 3u);  // two fit, the third is refused and extraction stops
  EXPECT_FALSE(entries[0].error);
  EXPECT_FALSE(entries[1].error);
  ASSERT_TRUE(entries[2].error);
  EXPECT_NE(entries[2].error->find("more than 1000 bytes"), std::string::npos) << *entries[2].error;
}

TEST_F(ArchiveTest, DuplicateEntryNamesDoNotOverwrite) {
  write_archive(archive("dup.tar"), ArchiveFormat::tar,
                {file_member("a.json", "first"), file_member("a.json", "second")});
  const auto entries = extract(archive("dup.tar"));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_FALSE(entries[0].error);
  ASSERT_TRUE(entries[1].error);
  std::ifstream in(entries[0].file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "first");
}

TEST_F(ArchiveTest, CorruptAndTruncatedArchivesAreErrorsNotCrashes) {
  std::ofstream(archive("garbage.tar.gz")) << "this is not an archive at all";
  auto entries = extract(archive("garbage.tar.gz"));
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_TRUE(entries[0].error);
  EXPECT_NE(entries[0].error->find("garbage.tar.gz"), std::string::npos);
  EXPECT_TRUE(entries[0].name.empty());

  // A real archive cut in the middle of its second member's data.
  write_archive(archive("cut.tar"), ArchiveFormat::tar,
                {file_member("a.json", "{}"), file_member("b.json", std::string(20000, 'x'))});
  fs::resize_file(archive("cut.tar"), 512 * 3 + 5000);
  ScopedTempDir into("dnnbench-archive-cut");
  entries = extract_archive(archive("cut.tar"), into.path(), {});
  ASSERT_GE(entries.size(), 2u);
  EXPECT_FALSE(entries[0].error);
  EXPECT_TRUE(entries.back().error);

  entries = extract(archive("missing.zip"));
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_NE(entries[0].error->find("cannot open"), std::string::npos) << *entries[0].error;
}

TEST_F(ArchiveTest, NamesWithControlCharactersOrInvalidUtf8AreRefusedAndShownEscaped) {
  write_archive(archive("names.tar"), ArchiveFormat::tar,
                {file_member("new\nline.json", "{}"), file_member("latin1-caf\xe9.json", "{}"),
                 file_member("esc\x1b[2J.json", "{}"), file_member("caf\xc3\xa9.json", "{}")});
  const auto entries = extract(archive("names.tar"));
  ASSERT_EQ(entries.size(), 4u);
  for (const char* shown : {"new\\nline.json", "latin1-caf\\xE9.json", "esc\\x1B[2J.json"}) {
    const auto* e = find(entries, shown);
    ASSERT_TRUE(e) << shown;
    ASSERT_TRUE(e->error) << shown;
    EXPECT_NE(e->error->find(std::string("entry '") + shown + "': refused: its path has control characters"),
              std::string::npos)
        << *e->error;
    EXPECT_EQ(e->error->find('\n'), std::string::npos);
  }
  EXPECT_FALSE(find(entries, "caf\xc3\xa9.json")->error);  // valid UTF-8 is fine
  EXPECT_EQ(count_files(into_.path()), 1u);
}

TEST_F(ArchiveTest, EntryCountCapStopsExtraction) {
  std::vector<ArchiveMember> members;
  for (int k = 0; k < 10; ++k) members.push_back(file_member("g" + std::to_string(k) + ".json", "{}"));
  write_archive(archive("many.tar.gz"), ArchiveFormat::tar_gz, members);
  ArchiveLimits limits;
  limits.max_entries = 4;
  const auto entries = extract(archive("many.tar.gz"), limits);
  ASSERT_EQ(entries.size(), 5u);
  ASSERT_TRUE(entries.back().error);
  EXPECT_NE(entries.back().error->find("more than 4 entries; extraction stopped"), std::string::npos);
  EXPECT_EQ(count_files(into_.path()), 4u);
}

// The committed seed archives (tests/data/archives, written by scripts/make_seed_archives.py),
// extracted with small caps: each gives exactly the entries listed in EXPECTED.txt, in order,
// each refused one with its message.
TEST(ArchiveCorpus, EveryArchiveGivesItsExpectedEntries) {
  const fs::path corpus = fs::path(DNNBENCH_SOURCE_DIR) / "tests" / "data" / "archives";
  std::ifstream in(corpus / "EXPECTED.txt");
  ASSERT_TRUE(in) << "no EXPECTED.txt in " << corpus;
  // archive -> its entries in order: (entry name, substring of its error or "" when extracted)
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> expected;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const auto bar = line.find(" | ", start);
      parts.push_back(line.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
      if (bar == std::string::npos) break;
      start = bar + 3;
    }
    ASSERT_EQ(parts.size(), 3u) << line;
    expected[parts[0]].emplace_back(parts[1] == "-" ? "" : parts[1], parts[2] == "-" ? "" : parts[2]);
  }
  ArchiveLimits limits;  // the fuzzer's caps: a small bomb is refused
  limits.max_entry_bytes = 1 << 20;
  limits.ratio_floor_bytes = 256 << 10;
  std::size_t archives = 0;
  for (const auto& item : fs::directory_iterator(corpus)) {
    if (!is_archive_path(item.path())) continue;
    ++archives;
    const std::string name = item.path().filename().string();
    SCOPED_TRACE(name);
    ASSERT_TRUE(expected.count(name)) << name << " has no line in EXPECTED.txt";
    ScopedTempDir into("dnnbench-archive-corpus");
    const auto entries = extract_archive(item.path(), into.path(), limits);
    const auto& wanted = expected[name];
    ASSERT_EQ(entries.size(), wanted.size());
    for (std::size_t k = 0; k < entries.size(); ++k) {
      EXPECT_EQ(entries[k].name, wanted[k].first);
      if (wanted[k].second.empty()) {
        EXPECT_FALSE(entries[k].error) << *entries[k].error;
      } else {
        ASSERT_TRUE(entries[k].error) << entries[k].name;
        EXPECT_NE(entries[k].error->find(wanted[k].second), std::string::npos) << *entries[k].error;
        EXPECT_NE(entries[k].error->find(item.path().string()), std::string::npos) << *entries[k].error;
      }
    }
  }
  EXPECT_EQ(archives, expected.size());
}

TEST(ScopedTempDirTest, RemovedWithItsContentEvenOnException) {
  fs::path kept;
  try {
    ScopedTempDir dir("dnnbench-raii");
    kept = dir.path();
    fs::create_directories(kept / "a" / "b");
    std::ofstream(kept / "a" / "b" / "c.json") << "{}";
    EXPECT_TRUE(fs::is_directory(kept));
    throw std::runtime_error("boom");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(kept));
}

}  // namespace
}  // namespace dnnbench
