#include "providers/compiled_plan_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "input/graph_loader.hpp"
#include "run/cache_folder.hpp"

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
