// The malformed graph corpus (tests/data/malformed): each file is refused with the JSON path
// and message listed in EXPECTED.txt, and every file of the corpus is listed there.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"

namespace dnnbench {
namespace {

const std::filesystem::path kCorpus =
    std::filesystem::path(DNNBENCH_SOURCE_DIR) / "tests" / "data" / "malformed";

struct Expectation {
  std::string file, path, substring;
};

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<Expectation> expectations() {
  std::ifstream in(kCorpus / "EXPECTED.txt");
  std::vector<Expectation> out;
  std::string line;
  while (std::getline(in, line)) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const auto bar1 = line.find('|'), bar2 = line.find('|', bar1 + 1);
    if (bar1 == std::string::npos || bar2 == std::string::npos) {
      ADD_FAILURE() << "bad EXPECTED.txt line: " << line;
      continue;
    }
    out.push_back({trim(line.substr(0, bar1)), trim(line.substr(bar1 + 1, bar2 - bar1 - 1)),
                   trim(line.substr(bar2 + 1))});
  }
  return out;
}

TEST(MalformedCorpus, EveryFileFailsWithItsMessage) {
  const auto cases = expectations();
  EXPECT_GE(cases.size(), 20u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto path = kCorpus / c.file;
    try {
      Graph g = read_graph_file(path);
      validate_graph(g);
      ADD_FAILURE() << c.file << " was accepted; expected: " << c.substring;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path.string());
      EXPECT_EQ(e.json_path(), c.path) << e.what();
      EXPECT_NE(e.message().find(c.substring), std::string::npos) << e.what();
    }
  }
}

TEST(MalformedCorpus, EveryFileIsListed) {
  std::set<std::string> listed;
  for (const auto& c : expectations()) listed.insert(c.file);
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".json") continue;
    EXPECT_TRUE(listed.count(entry.path().filename().string()))
        << entry.path() << " has no line in EXPECTED.txt";
  }
}

}  // namespace
}  // namespace dnnbench
