// Integration tests of `dnnbench run --dump-tensors` against an independent second implementation:
// scripts/check_dump.py recomputes every sample graph with numpy in float64 and compares the tool's
// reference outputs and every engine's outputs with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

namespace fs = std::filesystem;

const char* const kPython = "/usr/bin/python3";

bool python_has_numpy() {
  if (!fs::exists(kPython)) return false;
  const std::string command = shell_quote(kPython) + " -c 'import numpy' >/dev/null 2>&1 </dev/null";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Runs check_dump.py on a dump folder and graph paths; stdout and stderr go to one text.
CliResult run_check(const fs::path& dump, const std::vector<std::string>& graphs) {
  TempDir dir;
  std::string command = shell_quote(kPython) + " " + shell_quote(source_path("scripts/check_dump.py")) + " " +
                        shell_quote(dump.string());
  for (const auto& g : graphs) command += " " + shell_quote(g);
  command += " >" + shell_quote((dir / "out").string()) + " 2>&1 </dev/null";
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(dir / "out");
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

CliResult dump_samples(const fs::path& dump, const std::string& graphs) {
  return run_cli(
      {"run", "-g", graphs, "--dump-tensors", dump.string(), "--warmup", "0", "--iters", "1", "-q"});
}

#define SKIP_WITHOUT_NUMPY()                                                    \
  do {                                                                          \
    if (!python_has_numpy()) {                                                  \
      GTEST_SKIP() << kPython << " cannot import numpy; install python3-numpy"; \
    }                                                                           \
  } while (0)

// The default fill draws every input at the full precision of its type: a bf16 graph's dumped
// inputs are bf16 values (written as fp32) that use bf16's mantissa, not the 1/64 grid of the
// old default (a GPU clocks higher on few switching bits, so grid data read up to 10% fast).
TEST(DumpCheck, Bf16InputsAreFullPrecisionNotOnAGrid) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  const fs::path dump = dir / "dump";
  const auto run = dump_samples(dump, source_path("graphs/samples/matmul_batched_bf16.json"));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string script =
      "import glob, sys, numpy as np\n"
      "files = sorted(glob.glob(sys.argv[1] + '/*/inputs/*.npy'))\n"
      "assert files, 'no inputs dumped'\n"
      "for f in files:\n"
      "    v = np.load(f).astype(np.float64).ravel()\n"
      "    bf16 = (np.float32(v).view(np.uint32) & 0xFFFF) == 0\n"
      "    grid = np.floor(v * 64) == v * 64\n"
      "    print(f.split('/')[-1], v.size, 'bf16-exact', bf16.mean(), 'on-grid', grid.mean(), 'std', "
      "v.std())\n";
  const fs::path py = dir / "grid.py";
  std::ofstream(py) << script;
  const std::string command = shell_quote(kPython) + " " + shell_quote(py.string()) + " " +
                              shell_quote(dump.string()) + " >" + shell_quote((dir / "out").string()) +
                              " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_text(dir / "out");
  const auto lines = lines_of(read_text(dir / "out"));
  ASSERT_FALSE(lines.empty());
  for (const auto& line : lines) {
    std::istringstream in(line);
    std::string name, tag_exact, tag_grid, tag_std;
    double size = 0, exact = 0, on_grid = 1, std_dev = 0;
    in >> name >> size >> tag_exact >> exact >> tag_grid >> on_grid >> tag_std >> std_dev;
    EXPECT_EQ(exact, 1.0) << line << ": every value is a bf16 value";
    // bf16 keeps 8 significant bits: values above 1 in magnitude are on a 1/128 grid, above 2 on
    // 1/64's; about a fifth of N(0, 0.5^2) draws land on the 1/64 grid, every one of the grid fill's.
    EXPECT_LT(on_grid, 0.45) << line << ": not the 1/64 grid";
    EXPECT_NEAR(std_dev, 0.5, 0.08) << line << ": the normal fill, N(0, 0.5^2)";
  }
}

TEST(DumpCheck, NumpyAgreesWithReferenceAndEnginesOnEverySample) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  const fs::path dump = dir / "dump";
  const auto run = dump_samples(dump, source_path("graphs/samples"));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  const auto check = run_check(dump, {source_path("graphs/samples")});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  int onednn_pass = 0, reference_pass = 0;
  std::vector<std::string> skipped;
  for (const auto& line : lines_of(check.out)) {
    EXPECT_FALSE(contains(line, " FAIL")) << line;
    if (contains(line, " PASS ") && contains(line, " onednn/")) ++onednn_pass;
    if (contains(line, " PASS ") && contains(line, " reference ")) ++reference_pass;
    if (contains(line, " SKIP ")) skipped.push_back(line);
  }
  EXPECT_GE(onednn_pass, 40) << check.out;
  // Every sample but the unsupported one has a reference, checked against numpy.
  EXPECT_GE(reference_pass, 60) << check.out;
  ASSERT_EQ(skipped.size(), 1u) << check.out;
  EXPECT_TRUE(contains(skipped[0], "unsupported_block_scale_quantize")) << skipped[0];
  EXPECT_TRUE(contains(skipped[0], "BlockScaleQuantizeAttributes")) << skipped[0];
}

// Overwrites the data part of a .npy file (after its header) with bytes 0x47: every float32
// element becomes about 51015, nothing like a matmul of values on a 1/64 grid.
void corrupt_npy(const fs::path& path) {
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    bytes = s.str();
  }
  ASSERT_GT(bytes.size(), 12u);
  ASSERT_EQ(bytes.compare(0, 6, "\x93NUMPY"), 0) << path;
  const auto u8 = [&](std::size_t i) {
    return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i]));
  };
  const int major = static_cast<int>(u8(6));
  const std::size_t data =
      major == 1 ? 10 + (u8(8) | u8(9) << 8) : 12 + (u8(8) | u8(9) << 8 | u8(10) << 16 | u8(11) << 24);
  ASSERT_LT(data, bytes.size()) << path;
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(data), bytes.end(), '\x47');
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(DumpCheck, CorruptedEngineOutputIsCaught) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  const fs::path dump = dir / "dump";
  const std::string graph = source_path("graphs/samples/matmul_plain_fp32.json");
  const auto run = dump_samples(dump, graph);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  // Clean dump: passes.
  const auto clean = run_check(dump, {graph});
  ASSERT_EQ(clean.exit_code, 0) << clean.out;

  // The first engine folder of the first provider (sorted, so the choice is stable).
  const fs::path gdir = dump / "matmul_plain_fp32";
  std::vector<fs::path> engines;
  for (const auto& provider : fs::directory_iterator(gdir)) {
    const auto name = provider.path().filename().string();
    if (!provider.is_directory() || name == "inputs" || name == "reference") continue;
    for (const auto& engine : fs::directory_iterator(provider.path()))
      if (engine.is_directory()) engines.push_back(engine.path());
  }
  ASSERT_FALSE(engines.empty()) << "no engine outputs dumped under " << gdir;
  std::sort(engines.begin(), engines.end());
  const fs::path target = engines.front() / "c.npy";
  ASSERT_TRUE(fs::exists(target)) << target;
  corrupt_npy(target);

  const auto check = run_check(dump, {graph});
  EXPECT_EQ(check.exit_code, 1) << check.out;
  const std::string source =
      engines.front().parent_path().filename().string() + "/" + engines.front().filename().string();
  bool named = false;
  for (const auto& line : lines_of(check.out)) {
    if (contains(line, "matmul_plain_fp32") && contains(line, " FAIL") && contains(line, source))
      named = true;
    // The tool's own reference is untouched and still agrees.
    if (contains(line, " reference ")) {
      EXPECT_TRUE(contains(line, " PASS ")) << line;
    }
  }
  EXPECT_TRUE(named) << "expected a FAIL line for matmul_plain_fp32 " << source << " in:\n" << check.out;
}

TEST(DumpCheck, UsageErrorsExitTwo) {
  SKIP_WITHOUT_NUMPY();
  TempDir dir;
  EXPECT_EQ(run_check(dir.path(), {}).exit_code, 2);
  EXPECT_EQ(run_check(dir / "absent", {source_path("graphs/samples")}).exit_code, 2);
  EXPECT_EQ(run_check(dir.path(), {(dir / "absent.json").string()}).exit_code, 2);
}

}  // namespace
}  // namespace dnnbench::testing
