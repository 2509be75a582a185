// The compiled-plan cache's file store (providers/compiled_plan_cache.hpp): what it finds, what
// it treats as a miss, where it lives. The cuDNN plans it holds are tested on the GPU
// (cudnn_provider_test.cpp, RuntimeCompiledPlansAreKeptAndLoaded).
#include "providers/compiled_plan_cache.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "input/archive.hpp"  // ScopedTempDir
#include "sys/host_name.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

class CompiledPlanCacheTest : public ::testing::Test {
 protected:
  ScopedTempDir temp_{"dnnbench-plan-cache-test"};
  const fs::path dir_ = temp_.path() / "cache";
};

// Sets an environment variable for one scope, restoring what was there.
class EnvOverride {
 public:
  EnvOverride(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    value ? setenv(name, value->c_str(), 1) : unsetenv(name);
  }
  ~EnvOverride() { old_ ? setenv(name_, old_->c_str(), 1) : unsetenv(name_); }
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_F(CompiledPlanCacheTest, StoresAndFindsARecordByKey) {
  const CompiledPlanCache cache(dir_ / "plans");  // created on the first store
  const std::string key = "cudnn 9.14.0 | NVIDIA H200 sm_90 132 SMs | graph fnv1a64:0123 | eng80";
  EXPECT_FALSE(cache.find(key));
  ASSERT_EQ(cache.store(key, CachedPlan{"{\"plan\": [1, 2]}", 2496.5, "2026-12-02T12:00:00Z"}), "");
  const auto found = cache.find(key);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->blob, "{\"plan\": [1, 2]}");
  EXPECT_DOUBLE_EQ(found->compile_ms, 2496.5);
  EXPECT_EQ(found->created_utc, "2026-12-02T12:00:00Z");
  EXPECT_FALSE(cache.find(key + " "));  // another config, another record
  // Storing again replaces the record, and leaves no temporary file behind.
  ASSERT_EQ(cache.store(key, CachedPlan{"second", 1.0, "t"}), "");
  EXPECT_EQ(cache.find(key)->blob, "second");
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "plans")) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".json") << entry.path();
  }
  EXPECT_EQ(files, 1);
}

// A compile-ahead child and the row that needs its plan: the second asker waits while the first
// holds the key, and finds the record the first stored once the claim ends.
TEST_F(CompiledPlanCacheTest, ASecondClaimWaitsForTheFirstAndThenFindsItsRecord) {
  const CompiledPlanCache cache(dir_);
  const std::string key = "cudnn | graph fnv1a64:42 | eng80";
  auto first = cache.claim(key, 0);
  ASSERT_TRUE(first.claim.held());
  EXPECT_FALSE(first.contended);
  // Held: a claim that may not wait gets nothing, and says another holds it.
  const auto refused = cache.claim(key, 0);
  EXPECT_FALSE(refused.claim.held());
  EXPECT_TRUE(refused.contended);
  EXPECT_TRUE(cache.claim(key + " other config", 0).claim.held());  // other keys are free
  std::thread compiler([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    EXPECT_EQ(cache.store(key, CachedPlan{"compiled", 150, "t"}), "");
    first.claim.release();
  });
  const auto second = cache.claim(key, 30);
  compiler.join();
  EXPECT_TRUE(second.contended);
  EXPECT_TRUE(second.claim.held());
  EXPECT_GE(second.waited_ms, 100);
  EXPECT_LT(second.waited_ms, 10'000);
  ASSERT_TRUE(cache.find(key));
  EXPECT_EQ(cache.find(key)->blob, "compiled");
}

TEST_F(CompiledPlanCacheTest, AClaimEndsWithItsHolderAndALockOfADeadProcessIsTakenOver) {
  const CompiledPlanCache cache(dir_);
  const std::string key = "cudnn | graph fnv1a64:43 | eng72";
  { ASSERT_TRUE(cache.claim(key, 0).claim.held()); }  // released when it goes out of scope
  EXPECT_TRUE(cache.claim(key, 0).claim.held());
  // A process that claimed the key and died (killed mid-compile): its lock stays behind.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::ofstream(cache.path_for(key).string() + ".lock") << pid << " " << this_host_name();
  const auto taken = cache.claim(key, 0);
  EXPECT_TRUE(taken.claim.held());
  EXPECT_FALSE(taken.contended);
  // A live holder on this host is waited for, not taken over (this process's own pid is alive).
  const std::string live = key + " live";
  std::ofstream(cache.path_for(live).string() + ".lock") << getpid() << " " << this_host_name();
  EXPECT_FALSE(cache.claim(live, 0.05).claim.held());
}

TEST_F(CompiledPlanCacheTest, UnreadableOrForeignRecordsAreMisses) {
  const CompiledPlanCache cache(dir_);
  const std::string key = "some plan";
  fs::create_directories(dir_);
  const auto write = [&](const std::string& text) { std::ofstream(cache.path_for(key)) << text; };
  write("{\"key\": \"some pl");  // cut short
  EXPECT_FALSE(cache.find(key));
  write("{\"key\": \"another plan\", \"plan\": \"x\", \"compile_ms\": 1}");  // a hash collision
  EXPECT_FALSE(cache.find(key));
  write("{\"key\": \"some plan\", \"plan\": \"\"}");  // nothing to load
  EXPECT_FALSE(cache.find(key));
  write("{\"key\": \"some plan\", \"plan\": \"x\"}");  // no compile time: still a plan
  ASSERT_TRUE(cache.find(key));
  EXPECT_EQ(cache.find(key)->compile_ms, 0);
}

TEST_F(CompiledPlanCacheTest, AFolderThatCannotBeMadeIsAReasonNotAnError) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "not a folder";
  const CompiledPlanCache cache(dir_ / "file" / "plans");
  const std::string why = cache.store("k", CachedPlan{"x", 1, "t"});
  EXPECT_NE(why.find("cannot create the plan cache folder"), std::string::npos) << why;
  EXPECT_FALSE(cache.find("k"));
}

TEST(CompiledPlanCache, FolderComesFromTheEnvironment) {
  {
    EnvOverride cache("DNNBENCH_PLAN_CACHE", "off");
    EXPECT_FALSE(CompiledPlanCache::from_environment().enabled());
    const CompiledPlanCache off(std::nullopt);
    EXPECT_EQ(off.store("k", CachedPlan{"x", 1, "t"}), "");  // nothing to keep, nothing wrong
    EXPECT_FALSE(off.find("k"));
  }
  {
    EnvOverride cache("DNNBENCH_PLAN_CACHE", "/tmp/somewhere");
    EXPECT_EQ(CompiledPlanCache::from_environment().folder(), fs::path("/tmp/somewhere"));
  }
  {
    EnvOverride cache("DNNBENCH_PLAN_CACHE", std::nullopt);
    EnvOverride xdg("XDG_CACHE_HOME", "/tmp/xdg");
    EXPECT_EQ(CompiledPlanCache::from_environment().folder(), fs::path("/tmp/xdg/dnnbench/plans"));
  }
  {
    EnvOverride cache("DNNBENCH_PLAN_CACHE", std::nullopt);
    EnvOverride xdg("XDG_CACHE_HOME", std::nullopt);
    EnvOverride home("HOME", "/home/someone");
    EXPECT_EQ(CompiledPlanCache::from_environment().folder(),
              fs::path("/home/someone/.cache/dnnbench/plans"));
  }
}

}  // namespace
}  // namespace dnnbench
