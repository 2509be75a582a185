// Distributed runs (docs/distributed.md): `mpirun -np N dnnbench run` over oneDNN gives the rows
// of a single-process run, each once; a rank killed mid-run costs nothing but a retried graph;
// ranks that disagree are refused; SIGINT to mpirun leaves partial merged results that --resume
// completes. And `--shard` + `merge` without MPI gives the same rows too.
// The mpirun tests run the non-sanitized binary only where MPI is built (DNNBENCH_MPIEXEC); they
// are labelled `mpi` and skip elsewhere.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// oneDNN's primitive cache makes its implementation list depend on what the process built
// before (conv_fwd_2d_nhwc_fp32 after conv_fwd_2d_nchw_fp32 lists every engine twice, "#2"), so
// a graph's rows would depend on which rank ran what; without the cache they do not.
const std::string kNoPrimitiveCache = "ONEDNN_PRIMITIVE_CACHE_CAPACITY=0";
// Open MPI refuses root without the first two; the tests run as root in CI containers. Under the
// ASan preset: Open MPI's leaks at exit are suppressed (tests/lsan.supp), and its memory patcher,
// which hooks the allocator that ASan owns, is off (it serves only RDMA registration caches).
const std::vector<std::string> kMpiEnvironment{
    "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
    "OMP_NUM_THREADS=1",        kNoPrimitiveCache,
    "OMPI_MCA_memory=^patcher", "LSAN_OPTIONS=suppressions=" DNNBENCH_SOURCE_DIR "/tests/lsan.supp"};
const std::vector<std::string> kSingleEnvironment{"OMP_NUM_THREADS=1", kNoPrimitiveCache};
// A refused run leaves through MPI_Abort, before MPI_Finalize: Open MPI's plugins, already
// unloaded when LeakSanitizer looks, leave allocations it can only name "<unknown module>", which
// no suppression can match, and LeakSanitizer's exit code would replace the refusal's 2. Leak
// checks are off for that path alone (the other ASan checks stay on).
std::vector<std::string> without_leak_checks(std::vector<std::string> environment) {
  environment.push_back("ASAN_OPTIONS=detect_leaks=0:abort_on_error=1");
  return environment;
}

// With --enable-recovery (what lets a run outlive a dead rank), Open MPI 4.1's mpirun exits 0
// whatever the ranks return: those tests read the exit code from the results instead.
std::vector<std::string> mpirun(int ranks, bool recovery = true) {
#ifdef DNNBENCH_MPIEXEC
  // --timeout: a job that hangs (a rank parked in MPI_Finalize, say) fails here, not in CI's limit.
  std::vector<std::string> argv{DNNBENCH_MPIEXEC,     "--oversubscribe", "--timeout", "240", "-np",
                                std::to_string(ranks)};
  if (recovery) argv.insert(argv.begin() + 1, "--enable-recovery");
  return argv;
#else
  (void)ranks;
  (void)recovery;
  return {};
#endif
}

#define SKIP_WITHOUT_MPI()                                                           \
  do {                                                                               \
    if (mpirun(1).empty()) GTEST_SKIP() << "dnnbench was built without MPI support"; \
  } while (0)

// A command (argv[0] is a path) in the background, stdout and stderr to files under `dir`.
class Background {
 public:
  Background(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
             const TempDir& dir, const std::string& name) {
    out_ = dir / (name + ".out");
    err_ = dir / (name + ".err");
    pid_ = fork();
    if (pid_ == 0) {
      for (const auto& e : environment) putenv(const_cast<char*>(e.c_str()));
      setpgid(0, 0);
      std::vector<char*> cargs;
      for (const auto& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
      cargs.push_back(nullptr);
      const int o = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(o, 1);
      dup2(e, 2);
      execv(cargs[0], cargs.data());
      _exit(127);
    }
  }
  ~Background() {
    if (pid_ > 0 && !reaped_) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
  void signal(int sig) { kill(pid_, sig); }
  int wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  bool running() {
    int status = 0;
    if (reaped_) return false;
    if (waitpid(pid_, &status, WNOHANG) == 0) return true;
    reaped_ = true;
    return false;
  }
  std::string err() const { return read_text(err_); }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  fs::path out_, err_;
};

CliResult run_mpi(int ranks, const std::vector<std::string>& args) {
  return run_cli(args, kMpiEnvironment, mpirun(ranks));
}

// The suite of the "done when" list: graphs/samples twice, the second time as renamed copies
// (duplicates of the first: found over the whole suite whichever rank loads them).
fs::path twice_samples(const TempDir& dir) {
  const auto root = dir / "suite";
  fs::create_directories(root / "a");
  fs::create_directories(root / "b");
  for (const auto& entry : fs::directory_iterator(source_path("graphs/samples"))) {
    if (entry.path().extension() != ".json") continue;
    fs::copy_file(entry.path(), root / "a" / entry.path().filename());
    fs::copy_file(entry.path(), root / "b" / ("copy_" + entry.path().filename().string()));
  }
  return root;
}

std::vector<std::string> suite_args(const fs::path& suite, const fs::path& output) {
  return {"run",
          "-g",
          suite.string(),
          "--provider",
          "onednn",
          "--progress",
          "none",
          "-q",
          "--warmup",
          "0",
          "--iters",
          "2",
          "--warmup-max-ms",
          "0",
          "-o",
          output.string()};
}

// Graph entries and rows: identity and verdicts, in a set (order differs between runs).
std::multiset<std::string> row_set(const json& results) {
  std::multiset<std::string> rows;
  for (const auto& g : results.at("graphs")) {
    rows.insert(json{g.at("graph_path"), g.at("status"), g.at("duplicate_of")}.dump());
    for (const auto& r : g.at("results"))
      rows.insert(json{g.at("graph_path"), r.at("provider"), r.at("engine_id"), r.at("plan_name"),
                       r.at("status"), r.at("passed")}
                      .dump());
  }
  return rows;
}

// The single-process results of the suite, made once for every test here.
class Distributed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!provider_built("onednn")) return;
    dir_ = new TempDir;
    suite_ = twice_samples(*dir_);
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_cli(suite_args(suite_, *dir_ / "single.json"), kSingleEnvironment);
    single_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    single_exit_ = r.exit_code;
    single_ = new json(read_json(*dir_ / "single.json"));
  }
  static void TearDownTestSuite() {
    delete single_;
    delete dir_;
    single_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!single_) GTEST_SKIP() << "needs the onednn provider";
  }
  static TempDir* dir_;
  static fs::path suite_;
  static json* single_;
  static int single_exit_;
  static double single_seconds_;
};
TempDir* Distributed::dir_ = nullptr;
fs::path Distributed::suite_;
json* Distributed::single_ = nullptr;
int Distributed::single_exit_ = 0;
double Distributed::single_seconds_ = 0;

TEST_F(Distributed, MpiRunGivesTheRowsOfASingleProcessRunEachOnce) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  const auto output = dir / "mpi.json";
  const auto r = run_mpi(3, suite_args(suite_, output));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = read_json(output);
  EXPECT_EQ(merged.at("exit_code"), single_exit_);
  EXPECT_TRUE(merged.at("complete").get<bool>());
  EXPECT_EQ(row_set(merged), row_set(*single_));
  EXPECT_EQ(merged.at("summary").at("rows"), single_->at("summary").at("rows"));
  EXPECT_EQ(merged.at("summary").at("duplicates"), single_->at("summary").at("duplicates"));
  // The suite's order, not the order rows finished in.
  std::vector<std::string> order, single_order;
  for (const auto& g : merged.at("graphs")) order.push_back(g.at("graph_path"));
  for (const auto& g : single_->at("graphs")) single_order.push_back(g.at("graph_path"));
  EXPECT_EQ(order, single_order);
  std::set<int> ranks_seen;
  for (const auto& g : merged.at("graphs"))
    for (const auto& row : g.at("results")) {
      ASSERT_TRUE(row.at("measured_by").is_object()) << row.dump();
      ranks_seen.insert(row.at("measured_by").at("rank").get<int>());
      EXPECT_FALSE(row.at("measured_by").at("host").get<std::string>().empty());
    }
  EXPECT_EQ(ranks_seen, (std::set<int>{0, 1, 2})) << "every rank measured rows";
  const auto& ranks = merged.at("metadata").at("mpi").at("ranks");
  ASSERT_EQ(ranks.size(), 3u);
  for (const auto& rank : ranks) {
    EXPECT_TRUE(rank.at("providers").contains("onednn")) << rank.dump();
    EXPECT_FALSE(rank.at("lost").get<bool>());
  }
  // Per-rank journals, and rank 0's merged one (which --resume reads).
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_TRUE(fs::exists(output.string() + ".journal.jsonl.rank" + std::to_string(rank) + ".jsonl"))
        << rank;
  EXPECT_TRUE(fs::exists(output.string() + ".journal.jsonl"));
  std::cerr << "[timing] single process " << single_seconds_ << " s\n";
}

// The pid of rank `rank`, from rank 0's start lines ("rank 1 on HOST (pid 123): ...").
pid_t rank_pid(const std::string& err, int rank) {
  const auto at = err.find("rank " + std::to_string(rank) + " on ");
  if (at == std::string::npos) return -1;
  const auto pid = err.find("(pid ", at);
  return pid == std::string::npos ? -1 : std::stoi(err.substr(pid + 5));
}

// The last event a journal holds ("row_started", "row", "graph"), or "".
std::string last_event(const std::string& journal) {
  const auto text = read_text(journal);
  const auto at = text.rfind("\"event\":\"");
  if (at == std::string::npos) return "";
  const auto start = at + 9;
  return text.substr(start, text.find('"', start) - start);
}

std::vector<std::string> with_mpirun(int ranks, std::vector<std::string> args) {
  auto argv = mpirun(ranks);
  argv.push_back(DNNBENCH_BINARY);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

bool wait_for(const std::function<bool()>& condition, Background& run) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (std::chrono::steady_clock::now() < until) {
    if (condition()) return true;
    if (!run.running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST_F(Distributed, KilledRankLosesOnlyItsGraphWhichIsRetried) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  const auto output = dir / "killed.json";
  auto args = suite_args(suite_, output);
  args.insert(args.end(), {"--rank-timeout-s", "4"});
  Background run(with_mpirun(3, args), kMpiEnvironment, dir, "mpirun");
  const auto rank1_journal = output.string() + ".journal.jsonl.rank1.jsonl";
  pid_t pid = -1;
  ASSERT_TRUE(wait_for([&] { return (pid = rank_pid(run.err(), 1)) > 0; }, run)) << run.err();
  // Killed inside a graph: frozen, and killed only when its journal shows a row in flight.
  bool in_flight = false;
  ASSERT_TRUE(wait_for(
      [&] {
        if (read_text(rank1_journal).find("\"event\":\"graph\"") == std::string::npos) return false;
        kill(pid, SIGSTOP);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // its last write lands
        in_flight = last_event(rank1_journal) == "row_started";
        if (!in_flight) kill(pid, SIGCONT);
        return in_flight;
      },
      run))
      << run.err();
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_EQ(run.wait(), 0) << run.err();
  EXPECT_NE(run.err().find("rank 1"), std::string::npos) << run.err();
  EXPECT_NE(run.err().find("goes to another rank"), std::string::npos) << run.err();
  const auto merged = read_json(output);
  EXPECT_TRUE(merged.at("complete").get<bool>());
  EXPECT_EQ(merged.at("exit_code"), single_exit_);
  EXPECT_EQ(row_set(merged), row_set(*single_)) << "the retried graph's rows are all there, once";
  EXPECT_TRUE(merged.at("metadata").at("mpi").at("ranks").at(1).at("lost").get<bool>());
}

TEST_F(Distributed, SigintWritesPartialResultsAndResumeCompletesThem) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  const auto output = dir / "stopped.json";
  const auto journal = output.string() + ".journal.jsonl";
  {
    // A child process per row (not in the options fingerprint) makes the run last seconds, so
    // that the signal falls inside it (--isolate graph's one worker per rank is too quick now).
    auto args = suite_args(suite_, output);
    args.insert(args.end(), {"--isolate", "row"});
    Background run(with_mpirun(2, args), kMpiEnvironment, dir, "mpirun");
    ASSERT_TRUE(
        wait_for([&] { return read_text(journal).find("\"event\":\"graph\"") != std::string::npos; }, run))
        << run.err();
    run.signal(SIGINT);
    run.wait();
    ASSERT_TRUE(fs::exists(output)) << run.err();
  }
  const auto partial = read_json(output);
  EXPECT_FALSE(partial.at("complete").get<bool>());
  EXPECT_GT(partial.at("summary").at("rows").get<int>(), 0);
  EXPECT_LT(partial.at("graphs").size(), single_->at("graphs").size());

  auto args = suite_args(suite_, output);
  args.push_back("--resume");
  const auto r = run_mpi(2, args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto resumed = read_json(output);
  EXPECT_TRUE(resumed.at("complete").get<bool>());
  EXPECT_EQ(resumed.at("exit_code"), single_exit_);
  EXPECT_EQ(row_set(resumed), row_set(*single_));
}

TEST_F(Distributed, RanksWithOtherOptionsAreRefused) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  // MPMD: two programs in one job, with different seeds. Without --enable-recovery mpirun passes
  // the ranks' exit code on.
  auto argv = mpirun(1, /*recovery=*/false);
  argv.push_back(DNNBENCH_BINARY);
  for (const auto& a : suite_args(suite_, dir / "x.json")) argv.push_back(a);
  argv.insert(argv.end(), {"--seed", "1", ":", "-np", "1", DNNBENCH_BINARY});
  for (const auto& a : suite_args(suite_, dir / "x.json")) argv.push_back(a);
  argv.insert(argv.end(), {"--seed", "2"});
  Background run(argv, without_leak_checks(kMpiEnvironment), dir, "mpirun");
  EXPECT_EQ(run.wait(), 2) << run.err();
  EXPECT_NE(run.err().find("runs with other options than rank 0"), std::string::npos) << run.err();
  EXPECT_FALSE(fs::exists(dir / "x.json"));
}

TEST_F(Distributed, ShardsMergedGiveTheRowsOfASingleProcessRun) {
  TempDir dir;
  std::vector<std::string> files;
  for (int shard = 1; shard <= 3; ++shard) {
    const auto output = dir / ("shard" + std::to_string(shard) + ".json");
    auto args = suite_args(suite_, output);
    args.insert(args.end(), {"--shard", std::to_string(shard) + "/3"});
    const auto r = run_cli(args, kSingleEnvironment);
    ASSERT_LE(r.exit_code, 1) << r.err;
    const auto part = read_json(output);
    EXPECT_LT(part.at("graphs").size(), single_->at("graphs").size());
    EXPECT_EQ(part.at("metadata").at("shard").at("count"), 3);
    files.push_back(output.string());
  }
  std::vector<std::string> merge{"merge"};
  merge.insert(merge.end(), files.begin(), files.end());
  merge.insert(merge.end(), {"-o", (dir / "all.json").string()});
  const auto r = run_cli(merge);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = read_json(dir / "all.json");
  EXPECT_TRUE(merged.at("complete").get<bool>()) << r.err;
  EXPECT_EQ(row_set(merged), row_set(*single_));
  EXPECT_EQ(merged.at("exit_code"), single_exit_);
  std::vector<std::string> order, single_order;
  for (const auto& g : merged.at("graphs")) order.push_back(g.at("graph_path"));
  for (const auto& g : single_->at("graphs")) single_order.push_back(g.at("graph_path"));
  EXPECT_EQ(order, single_order);
  // Two of three shards: incomplete, and said so.
  const auto partial = run_cli({"merge", files[0], files[2], "-o", (dir / "part.json").string()});
  EXPECT_EQ(partial.exit_code, 0);
  EXPECT_NE(partial.err.find("shard 2 of 3 missing"), std::string::npos) << partial.err;
  EXPECT_FALSE(read_json(dir / "part.json").at("complete").get<bool>());
}

// What a single-process run writes besides the JSON, rank 0 writes too: the CSV and the model
// summary of an import source (a MIOpenDriver file, converted on every rank alike).
TEST_F(Distributed, ImportSourcesGiveTheModelSummaryAndTheCsv) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  std::ofstream(dir / "nets.txt") << "2 conv -n 2 -c 8 -H 8 -W 8 -k 16 -y 3 -x 3 -p 1 -q 1 -F 1\n"
                                  << "conv -n 2 -c 16 -H 8 -W 8 -k 16 -y 1 -x 1 -F 1\n";
  auto args = suite_args(dir / "nets.txt", dir / "mpi.json");
  args.insert(args.end(), {"--csv", (dir / "mpi.csv").string()});
  const auto r = run_mpi(2, args);
  ASSERT_TRUE(fs::exists(dir / "mpi.json")) << r.err;
  const auto doc = read_json(dir / "mpi.json");
  EXPECT_EQ(doc.at("exit_code"), 0) << r.err;
  ASSERT_EQ(doc.at("graphs").size(), 2u);
  EXPECT_EQ(doc["graphs"][0]["graph_path"], (dir / "nets.txt").string() + ":1");
  ASSERT_TRUE(doc.contains("model_summary")) << doc.dump().substr(0, 400);
  EXPECT_NE(r.out.find("Model summary"), std::string::npos) << r.out;
  const auto csv = read_text(dir / "mpi.csv");
  EXPECT_NE(csv.find("nets.txt:2"), std::string::npos) << csv.substr(0, 400);
}

TEST_F(Distributed, ProfileIsRefusedUnderMpirun) {
  SKIP_WITHOUT_MPI();
  TempDir dir;
  auto argv = mpirun(2, /*recovery=*/false);
  argv.push_back(DNNBENCH_BINARY);
  for (const auto& a : suite_args(suite_, dir / "x.json")) argv.push_back(a);
  argv.insert(argv.end(), {"--profile", "ncu"});
  Background run(argv, without_leak_checks(kMpiEnvironment), dir, "mpirun");
  EXPECT_EQ(run.wait(), 2) << run.err();
  EXPECT_NE(run.err().find("--profile re-runs each row under ncu"), std::string::npos) << run.err();
  EXPECT_FALSE(fs::exists(dir / "x.json"));
}

TEST(DistributedUsage, BadShardIsAUsageError) {
  const auto r = run_cli({"run", "-g", source_path("graphs/samples/pointwise_relu.json"), "--shard", "4/3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shard '4/3'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dnnbench::testing
