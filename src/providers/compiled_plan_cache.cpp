#include "providers/compiled_plan_cache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "graph/content_hash.hpp"
#include "sys/cache_folder.hpp"
#include "sys/host_name.hpp"
#include "sys/interrupt.hpp"

namespace dnnbench {

namespace fs = std::filesystem;

CompiledPlanCache CompiledPlanCache::from_environment() {
  if (const char* env = std::getenv("DNNBENCH_PLAN_CACHE"); env && *env) {
    const std::string value = env;
    if (value == "off" || value == "0") return CompiledPlanCache(std::nullopt);
    return CompiledPlanCache(fs::path(value));
  }
  if (const auto folder = dnnbench_cache_folder()) return CompiledPlanCache(*folder / "plans");
  return CompiledPlanCache(std::nullopt);
}

fs::path CompiledPlanCache::path_for(const std::string& key) const {
  std::string name = content_hash(key);  // "fnv1a64:<hex>"
  name = name.substr(name.find(':') + 1);
  return folder_.value_or(fs::path()) / (name + ".json");
}

std::optional<CachedPlan> CompiledPlanCache::find(const std::string& key) const {
  if (!folder_) return std::nullopt;
  std::ifstream in(path_for(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const auto record = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  // A hash collision, a record from a half-written or foreign file: a miss.
  if (!record.is_object() || record.value("key", "") != key || !record.contains("plan") ||
      !record["plan"].is_string() || record["plan"].get<std::string>().empty())
    return std::nullopt;
  CachedPlan plan;
  plan.blob = record["plan"].get<std::string>();
  if (record.contains("compile_ms") && record["compile_ms"].is_number())
    plan.compile_ms = record["compile_ms"].get<double>();
  plan.created_utc = record.value("created_utc", "");
  return plan;
}

namespace {

// A claim older than this is taken over whatever its holder: no compile takes an hour, and a lock
// from another host (a shared cache folder) cannot be checked for a live process.
constexpr auto kStaleClaim = std::chrono::hours(1);
constexpr auto kClaimPoll = std::chrono::milliseconds(20);

std::string claim_owner() {
  return fmt::format("{} {}", static_cast<long>(::getpid()), this_host_name());
}

// Whether the lock at `lock` was left by a process that no longer holds it.
bool stale_claim(const fs::path& lock) {
  std::error_code ec;
  const auto written = fs::last_write_time(lock, ec);
  if (ec) return false;  // gone meanwhile: not stale, free
  if (fs::file_time_type::clock::now() - written > kStaleClaim) return true;
  std::ifstream in(lock);
  long pid = 0;
  std::string host;
  if (!(in >> pid >> host)) return false;  // being written: its holder is alive
  return host == this_host_name() && pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

CompileClaim& CompileClaim::operator=(CompileClaim&& other) noexcept {
  if (this != &other) {
    release();
    lock_ = std::exchange(other.lock_, {});
  }
  return *this;
}

void CompileClaim::release() {
  if (lock_.empty()) return;
  std::error_code ec;
  fs::remove(lock_, ec);
  lock_.clear();
}

ClaimOutcome CompiledPlanCache::claim(const std::string& key, double max_wait_s) const {
  ClaimOutcome outcome;
  if (!folder_) return outcome;
  std::error_code ec;
  fs::create_directories(*folder_, ec);
  const fs::path lock = path_for(key).string() + ".lock";
  const auto start = std::chrono::steady_clock::now();
  const auto waited = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  while (true) {
    const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string owner = claim_owner();
      const bool written = ::write(fd, owner.data(), owner.size()) == static_cast<ssize_t>(owner.size());
      ::close(fd);
      outcome.waited_ms = waited();
      if (written)
        outcome.claim = CompileClaim(lock);
      else
        fs::remove(lock, ec);
      return outcome;
    }
    // No lock can be made here (a read-only folder): compile unclaimed, as without a cache.
    if (errno != EEXIST) break;
    if (stale_claim(lock)) {
      fs::remove(lock, ec);
      continue;
    }
    outcome.contended = true;
    if (waited() >= max_wait_s * 1e3 || stop_requested()) break;
    std::this_thread::sleep_for(kClaimPoll);
  }
  outcome.waited_ms = waited();
  return outcome;
}

std::string CompiledPlanCache::store(const std::string& key, const CachedPlan& plan) const {
  if (!folder_) return "";
  std::error_code ec;
  fs::create_directories(*folder_, ec);
  if (ec) return fmt::format("cannot create the plan cache folder {}: {}", folder_->string(), ec.message());
  const fs::path target = path_for(key);
  // A name of this process's own, so that two writers never share a temporary file.
  const fs::path temporary = target.string() + fmt::format(".{}.tmp", static_cast<long>(::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << nlohmann::json{{"key", key},
                          {"compile_ms", plan.compile_ms},
                          {"created_utc", plan.created_utc},
                          {"plan", plan.blob}}
               .dump();
    if (!out.flush()) {
      fs::remove(temporary, ec);
      return fmt::format("cannot write {}", temporary.string());
    }
  }
  fs::rename(temporary, target, ec);
  if (ec) {
    const std::string why =
        fmt::format("cannot rename {} to {}: {}", temporary.string(), target.string(), ec.message());
    fs::remove(temporary, ec);
    return why;
  }
  return "";
}

}  // namespace dnnbench
