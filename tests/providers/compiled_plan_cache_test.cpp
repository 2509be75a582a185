// The compiled-plan cache's file store (providers/compiled_plan_cache.hpp): what it finds, what
// it treats as a miss, where it lives. The cuDNN plans it holds are tested on the GPU
// (cudnn_provider_test.cpp, RuntimeCompiledPlansAreKeptAndLoaded).
#include "providers/compiled_plan_cache.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "input/archive.hpp"  // ScopedTempDir

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
