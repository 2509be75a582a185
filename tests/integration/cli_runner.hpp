#pragma once
// Runs the real dnnbench binary and captures its exit code, stdout and stderr.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnbench::testing {

struct CliResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A JSON file the binary wrote (its results, a comparison, a manifest).
inline nlohmann::json read_json(const std::filesystem::path& path) {
  return nlohmann::json::parse(read_text(path));
}

// A fresh temporary folder per test, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dnnbench-test-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// `environment`: "NAME=value" assignments for the child only (e.g. TMPDIR). `launcher`: words
// before the binary (e.g. mpirun and its options).
inline CliResult run_cli(const std::vector<std::string>& args,
                         const std::vector<std::string>& environment = {},
                         const std::vector<std::string>& launcher = {}) {
  TempDir dir;
  std::string command;
  for (const auto& assignment : environment) command += shell_quote(assignment) + " ";
  if (!environment.empty()) command = "env " + command;
  for (const auto& word : launcher) command += shell_quote(word) + " ";
  command += shell_quote(DNNBENCH_BINARY);
  // Appended piecewise: `" " + std::string` trips GCC 12's false -Wrestrict at -O3 when inlined.
  for (const auto& a : args) {
    command += ' ';
    command += shell_quote(a);
  }
  command += " >" + shell_quote((dir / "out").string()) + " 2>" + shell_quote((dir / "err").string()) +
             " </dev/null";
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_text(dir / "out");
  r.err = read_text(dir / "err");
  return r;
}

inline std::string source_path(const std::string& relative) {
  return std::string(DNNBENCH_SOURCE_DIR) + "/" + relative;
}

// Whether this binary has provider `name`: its line in `list-providers`, unless that line says
// why it was `not built` (configure lists those too).
inline bool provider_built(const std::string& name) {
  const std::string listing = run_cli({"list-providers"}).out;
  std::size_t at = 0;
  while (at < listing.size()) {
    const std::size_t end = std::min(listing.find('\n', at), listing.size());
    const std::string line = listing.substr(at, end - at);
    if (line.rfind(name + " ", 0) == 0) return line.find("not built") == std::string::npos;
    at = end + 1;
  }
  return false;
}

// Quick timing options so integration tests spend their time on checks, not on sampling.
inline std::vector<std::string> quick_timing() {
  return {"--warmup", "1", "--iters", "3", "--warmup-max-ms", "0"};
}

// `dnnbench run ARGS` with quick_timing() appended.
inline std::vector<std::string> run_args(std::vector<std::string> args) {
  std::vector<std::string> all = {"run"};
  all.insert(all.end(), args.begin(), args.end());
  for (const auto& a : quick_timing()) all.push_back(a);
  return all;
}

}  // namespace dnnbench::testing
