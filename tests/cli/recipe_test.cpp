// Recipes: a valid one with every key, and each kind of error, which must name the file, the
// line and the key.
#include "cli/recipe.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

using Strings = std::vector<std::string>;

std::string error_of(const std::string& text, const std::string& source = "dir/r.toml") {
  try {
    parse_recipe(text, source);
  } catch (const RecipeError& e) {
    return e.what();
  }
  return "";
}

TEST(Recipe, EveryKeyIsReadAndRelativePathsResolveAgainstTheRecipeFolder) {
  const auto r = parse_recipe(R"(
version = 1
graphs = ["../graphs/samples", "more/*.json", "/abs/g.json"]
providers = ["onednn"]
skip_engines = ["ref:any"]
ops = "matmul"
warmup = 0
iters = 2
min_iters = 3
max_iters = 50
target_ci = 0.05
min_time_ms = 1
max_time_ms = 100.5
seed = 7
output = "out/results.json"
rtol = 1e-3
atol = 0
dump_tensors = "dump"
save_samples = true
max_graph_bytes = 1000000
max_memory = 2000000
max_archive_entry_bytes = 1000
max_archive_bytes = 100000
progress = "lines"
verbose = false
quiet = true
dry_run = false

[[engines]]
provider = "onednn"
id = "jit:avx2"
label = "the JIT"

[[engines]]
provider = "onednn"
id = "ref:any"
)",
                              "recipes/r.toml");
  EXPECT_EQ(r.get<Strings>("graphs"),
            (std::vector<std::string>{"graphs/samples", "recipes/more/*.json", "/abs/g.json"}));
  EXPECT_EQ(r.get<Strings>("providers"), std::vector<std::string>{"onednn"});
  EXPECT_EQ(r.get<Strings>("skip_engines"), std::vector<std::string>{"ref:any"});
  EXPECT_EQ(r.get<Strings>("ops"), std::vector<std::string>{"matmul"});
  EXPECT_EQ(r.get<std::int64_t>("warmup"), 0);
  EXPECT_EQ(r.get<std::int64_t>("iters"), 2);
  EXPECT_EQ(r.get<std::int64_t>("min_iters"), 3);
  EXPECT_EQ(r.get<std::int64_t>("max_iters"), 50);
  EXPECT_DOUBLE_EQ(*r.get<double>("target_ci"), 0.05);
  EXPECT_DOUBLE_EQ(*r.get<double>("min_time_ms"), 1.0);  // an integer where a number is wanted is fine
  EXPECT_DOUBLE_EQ(*r.get<double>("max_time_ms"), 100.5);
  EXPECT_EQ(r.get<std::uint64_t>("seed"), 7u);
  EXPECT_EQ(r.get<std::string>("output"), "recipes/out/results.json");
  EXPECT_DOUBLE_EQ(*r.get<double>("rtol"), 1e-3);
  EXPECT_DOUBLE_EQ(*r.get<double>("atol"), 0.0);
  EXPECT_EQ(r.get<std::string>("dump_tensors"), "recipes/dump");
  EXPECT_EQ(r.get<bool>("save_samples"), true);
  EXPECT_EQ(r.get<std::int64_t>("max_graph_bytes"), 1000000);
  EXPECT_EQ(r.get<std::int64_t>("max_memory"), 2000000);
  EXPECT_EQ(r.get<std::int64_t>("max_archive_entry_bytes"), 1000);
  EXPECT_EQ(r.get<std::int64_t>("max_archive_bytes"), 100000);
  EXPECT_EQ(r.get<std::string>("progress"), "lines");
  EXPECT_EQ(r.get<bool>("verbose"), false);
  EXPECT_EQ(r.get<bool>("quiet"), true);
  EXPECT_FALSE(r.get<Strings>("engines"));
  ASSERT_EQ(r.engine_matrix.size(), 2u);
  EXPECT_EQ(r.engine_matrix[0].provider, "onednn");
  EXPECT_EQ(r.engine_matrix[0].id, "jit:avx2");
  EXPECT_EQ(r.engine_matrix[0].label, "the JIT");
  EXPECT_FALSE(r.engine_matrix[1].label);
}

TEST(Recipe, EnginesMayBeAPlainListLikeTheCommandLine) {
  const auto r = parse_recipe("version = 1\nengines = [\"jit:avx2\", \"ref:any\"]\n", "r.toml");
  EXPECT_EQ(r.get<Strings>("engines"), (std::vector<std::string>{"jit:avx2", "ref:any"}));
  EXPECT_TRUE(r.engine_matrix.empty());
}

TEST(Recipe, AFileInTheCurrentFolderKeepsPathsAsWritten) {
  const auto r = parse_recipe("version = 1\ngraphs = \"g.json\"\n", "r.toml");
  EXPECT_EQ(r.get<Strings>("graphs"), std::vector<std::string>{"g.json"});
}

TEST(RecipeErrors, VersionIsRequiredAndMustBeOne) {
  EXPECT_NE(error_of("warmup = 1\n").find("missing key 'version'"), std::string::npos);
  const auto e = error_of("version = 2\n");
  EXPECT_NE(e.find("dir/r.toml:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("recipe version 1, got 2"), std::string::npos) << e;
  EXPECT_NE(error_of("version = \"1\"\n").find("got \"1\""), std::string::npos);
}

TEST(RecipeErrors, UnknownKeyNamesFileLineAndKey) {
  const auto e = error_of("version = 1\n\nwarmpu = 3\n");
  EXPECT_NE(e.find("dir/r.toml:3:1: unknown key 'warmpu'"), std::string::npos) << e;
}

TEST(RecipeErrors, WrongTypesNameTheKeyAndWhatWasExpected) {
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"version = 1\nwarmup = \"3\"\n", "dir/r.toml:2:10: key 'warmup': expected an integer, got a string"},
      {"version = 1\niters = 2.5\n", "key 'iters': expected an integer, got a floating-point number"},
      {"version = 1\nrtol = \"x\"\n", "key 'rtol': expected a number, got a string"},
      {"version = 1\nsave_samples = 1\n", "key 'save_samples': expected a boolean"},
      {"version = 1\ngraphs = [1, 2]\n", "key 'graphs': expected an array of strings, got an integer in it"},
      {"version = 1\nproviders = 3\n", "key 'providers': expected a string or an array of strings"},
      {"version = 1\noutput = []\n", "key 'output': expected a string, got an array"},
      {"version = 1\nengines = 5\n", "key 'engines': expected a string or an array of strings"},
  };
  for (const auto& c : cases) {
    const auto e = error_of(c.text);
    EXPECT_NE(e.find(c.expected), std::string::npos) << c.text << " -> " << e;
  }
}

TEST(RecipeErrors, OutOfRangeValues) {
  EXPECT_NE(error_of("version = 1\nwarmup = -1\n").find("key 'warmup': must be >= 0, got -1"),
            std::string::npos);
  EXPECT_NE(error_of("version = 1\niters = 0\n").find("key 'iters': must be >= 1"), std::string::npos);
  EXPECT_NE(error_of("version = 1\ntarget_ci = 2.0\n").find("key 'target_ci': must be in"),
            std::string::npos);
  EXPECT_NE(error_of("version = 1\nmax_time_ms = 0\n").find("key 'max_time_ms': must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of("version = 1\nprogress = \"fancy\"\n").find("key 'progress': expected \"auto\""),
            std::string::npos);
}

TEST(RecipeErrors, EngineMatrixEntries) {
  auto e = error_of("version = 1\n[[engines]]\nprovider = \"onednn\"\n");
  EXPECT_NE(e.find("needs `id`"), std::string::npos) << e;
  EXPECT_NE(e.find("dir/r.toml:2:"), std::string::npos) << e;
  e = error_of("version = 1\n[[engines]]\nprovider = \"onednn\"\nid = \"x\"\ncolour = \"red\"\n");
  EXPECT_NE(e.find("dir/r.toml:5:1: unknown key 'engines.colour'"), std::string::npos) << e;
  e = error_of("version = 1\n[[engines]]\nprovider = 1\nid = \"x\"\n");
  EXPECT_NE(e.find("key 'engines.provider': expected a string, got an integer"), std::string::npos) << e;
}

TEST(RecipeErrors, InvalidTomlNamesTheLine) {
  const auto e = error_of("version = 1\nwarmup = = 2\n");
  EXPECT_NE(e.find("dir/r.toml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("not valid TOML"), std::string::npos) << e;
}

TEST(RecipeErrors, MissingFile) {
  try {
    read_recipe("/nonexistent/recipe.toml");
    FAIL();
  } catch (const RecipeError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/recipe.toml: cannot open the recipe"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace dnnbench

namespace dnnbench {
namespace {

TEST(Recipe, ReliabilityKeys) {
  const auto r =
      parse_recipe("version = 1\njournal = \"j.jsonl\"\nisolate = \"row\"\ntimeout_s = 2.5\n", "dir/r.toml");
  EXPECT_EQ(r.get<std::string>("journal"), "dir/j.jsonl");
  EXPECT_EQ(r.get<std::string>("isolate"), "row");
  EXPECT_EQ(r.get<double>("timeout_s"), 2.5);
  EXPECT_NE(error_of("version = 1\nisolate = \"process\"\n").find("expected \"none\", \"graph\" or \"row\""),
            std::string::npos);
  EXPECT_NE(error_of("version = 1\ntimeout_s = 0\n").find("timeout_s"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench

namespace dnnbench {
namespace {

TEST(Recipe, KeysTheFirstRecipesRefusedAreRead) {
  const auto r = parse_recipe(R"(version = 1
oracle = true
oracle_min_effect = 0.05
max_engines = 2
cache_mode = "cold"
latency = true
batch = 4
heur_mode = "b"
cpu_reference = true
warmup_max_ms = 100
calibration_file = "cal.json"
max_memory = "16GiB"
max_graph_bytes = "1.5G"
)",
                              "dir/r.toml");
  EXPECT_EQ(r.get<bool>("oracle"), true);
  EXPECT_EQ(r.get<double>("oracle_min_effect"), 0.05);
  EXPECT_EQ(r.get<std::int64_t>("max_engines"), 2);
  EXPECT_EQ(r.get<std::string>("cache_mode"), "cold");
  EXPECT_EQ(r.get<bool>("latency"), true);
  EXPECT_EQ(r.get<std::int64_t>("batch"), 4);
  EXPECT_EQ(r.get<std::string>("heur_mode"), "b");
  EXPECT_EQ(r.get<bool>("cpu_reference"), true);
  EXPECT_EQ(r.get<double>("warmup_max_ms"), 100.0);
  EXPECT_EQ(r.get<std::string>("calibration_file"), "dir/cal.json");
  EXPECT_EQ(r.get<std::int64_t>("max_memory"), std::int64_t{16} << 30);
  EXPECT_EQ(r.get<std::int64_t>("max_graph_bytes"), std::int64_t{3} << 29);
}

TEST(RecipeErrors, ByteCountsAndChoicesSayWhatIsWanted) {
  auto e = error_of("version = 1\nmax_memory = \"lots\"\n");
  EXPECT_NE(e.find("dir/r.toml:2:14: key 'max_memory': expected a byte count such as"), std::string::npos)
      << e;
  e = error_of("version = 1\nmax_memory = 0\n");
  EXPECT_NE(e.find("key 'max_memory': must be >= 1, got 0"), std::string::npos) << e;
  e = error_of("version = 1\nmax_memory = true\n");
  EXPECT_NE(e.find("key 'max_memory': expected a byte count"), std::string::npos) << e;
  e = error_of("version = 1\ncache_mode = \"warm\"\n");
  EXPECT_NE(e.find("key 'cache_mode': expected \"auto\", \"hot\", \"cold\", \"rotating\" or \"producer\", "
                   "got \"warm\""),
            std::string::npos)
      << e;
  e = error_of("version = 1\noracle = \"yes\"\n");
  EXPECT_NE(e.find("key 'oracle': expected a boolean"), std::string::npos) << e;
}

TEST(RecipeErrors, AMisspeltKeyGetsTheClosestKey) {
  auto e = error_of("version = 1\nwarmup_max = 3\n");
  EXPECT_NE(e.find("unknown key 'warmup_max' (did you mean 'warmup_max_ms'?)"), std::string::npos) << e;
  e = error_of("version = 1\nzzzzzzzz = 3\n");
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

}  // namespace
}  // namespace dnnbench
