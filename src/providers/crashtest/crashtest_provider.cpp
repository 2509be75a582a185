#include "providers/crashtest/crashtest_provider.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

#include <unistd.h>

#include "providers/reference/reference_provider.hpp"

namespace dnnbench {
namespace {

// DNNBENCH_CRASHTEST_STICKY=1: engine `throw` also loses the device for the rest of the process,
// as a CUDA kernel's illegal address does; device_lost() then names it.
std::optional<std::string>& lost_device() {
  static std::optional<std::string> lost;
  return lost;
}

// "quiet": `throw` loses the device without throwing; its row runs as `ok` and ends well, as a
// cuDNN kernel's fault can surface only after its row was judged.
std::string_view sticky_mode() {
  const char* text = std::getenv("DNNBENCH_CRASHTEST_STICKY");
  return text ? std::string_view(text) : std::string_view();
}

class FailingPlan final : public Plan {
 public:
  // `fails`: false runs the reference whatever the engine (a graph outside DNNBENCH_CRASHTEST_GRAPHS).
  // `slowdown`: each execution takes this many times the reference's, or times `spin_ms` when
  // that is set (1, 0: as long as the reference).
  FailingPlan(std::string engine, bool fails, double slowdown, double spin_ms,
              std::unique_ptr<Plan> reference)
      : engine_(std::move(engine)),
        fails_(fails),
        slowdown_(slowdown),
        spin_ms_(spin_ms),
        reference_(std::move(reference)) {}
  std::string name() const override { return engine_; }
  std::size_t workspace_bytes() const override { return 0; }
  void bind(const Bindings& bindings, Stream& stream) override { reference_->bind(bindings, stream); }
  void execute(Stream& stream) override {
    if (fails_) fail();
    if (slowdown_ <= 1 && spin_ms_ <= 0) return reference_->execute(stream);
    // Spinning, not sleeping: a sleep overshoots by the scheduler's tick, a spin by nanoseconds,
    // so the planted change is the factor asked for, whatever the reference's duration.
    const auto start = std::chrono::steady_clock::now();
    reference_->execute(stream);
    const auto base =
        spin_ms_ > 0 ? std::chrono::duration<double, std::milli>(spin_ms_)
                     : std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
    const auto until = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   base * std::max(1.0, slowdown_));
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  void publish_outputs(Stream& stream) override { reference_->publish_outputs(stream); }

 private:
  void fail() const {
    if (engine_ == "segv") std::raise(SIGSEGV);
    if (engine_ == "abort") std::abort();
    if (engine_ == "hang")
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
    if (engine_ == "throw") {
      if (sticky_mode() == "1" || sticky_mode() == "quiet")
        lost_device() = "the crashtest engine `throw` lost the device on request";
      if (sticky_mode() != "quiet") throw std::runtime_error("the crashtest engine `throw` fails on request");
    }
  }

  std::string engine_;
  bool fails_;
  double slowdown_, spin_ms_;
  std::unique_ptr<Plan> reference_;
};

// Whether the failing engines fail on this graph (DNNBENCH_CRASHTEST_GRAPHS, crashtest_provider.hpp).
bool fails_in(const Graph& graph) {
  const char* names = std::getenv("DNNBENCH_CRASHTEST_GRAPHS");
  if (!names) return true;
  std::string_view rest = names;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    if (rest.substr(0, comma) == graph.name) return true;
    rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
  }
  return false;
}

// DNNBENCH_CRASHTEST_SLOWDOWN (crashtest_provider.hpp): the factor, 1 when unset or not a number > 1.
double planted_slowdown(const Graph& graph) {
  const char* text = std::getenv("DNNBENCH_CRASHTEST_SLOWDOWN");
  if (!text || !fails_in(graph)) return 1;
  char* end = nullptr;
  const double factor = std::strtod(text, &end);
  return end != text && *end == '\0' && factor > 1 && factor < 100 ? factor : 1;
}

// DNNBENCH_CRASHTEST_SPIN_MS (crashtest_provider.hpp): the fixed execution time, 0 when unset.
double spin_ms() {
  const char* text = std::getenv("DNNBENCH_CRASHTEST_SPIN_MS");
  if (!text) return 0;
  char* end = nullptr;
  const double ms = std::strtod(text, &end);
  return end != text && *end == '\0' && ms > 0 && ms < 1000 ? ms : 0;
}

// DNNBENCH_CRASHTEST_BUILD_AHEAD: where markers of builds done ahead go; empty when unset.
std::filesystem::path build_ahead_folder() {
  const char* folder = std::getenv("DNNBENCH_CRASHTEST_BUILD_AHEAD");
  return folder ? folder : "";
}

// DNNBENCH_CRASHTEST_PLANS: how many plans engine `ok`'s plan space holds (the heuristic plan
// and plans with a knob `k` = 1, 2, ...: the same plan, for the oracle's sweep); 1 when unset.
int plan_count() {
  const char* text = std::getenv("DNNBENCH_CRASHTEST_PLANS");
  char* end = nullptr;
  const long n = text ? std::strtol(text, &end, 10) : 1;
  return text && end != text && *end == '\0' && n >= 1 && n <= 64 ? static_cast<int>(n) : 1;
}

// Whether `folder` holds a marker of plan `plan` of `graph` (<graph>.<plan>.<pid>).
bool built_ahead(const std::filesystem::path& folder, const std::string& graph, const std::string& plan) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
    if (entry.path().filename().string().starts_with(graph + "." + plan + ".")) return true;
  return false;
}

class CrashtestProvider final : public Provider {
 public:
  std::string_view name() const override { return "crashtest"; }
  DeviceKind device() const override { return DeviceKind::host; }
  int host_threads() const override { return reference_->host_threads(); }
  bool runs_at_core_speed() const override { return spin_ms() <= 0; }
  std::string version() const override { return "test double (fails on request)"; }
  std::unique_ptr<Stream> make_stream() override { return reference_->make_stream(); }
  std::optional<std::string> device_lost() override { return lost_device(); }
  std::vector<EngineInfo> engines(const Graph&) override {
    return {{"ok", "the reference", {}},
            {"segv", "raises SIGSEGV", {}},
            {"abort", "calls abort()", {}},
            {"hang", "never returns", {}},
            {"throw", "throws an exception", {}}};
  }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo& engine) override { return {engine.id, {}}; }
  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits&) override {
    std::vector<PlanSpec> space{heuristic_plan(graph, engine)};
    for (int k = 1; engine.id == "ok" && k < plan_count(); ++k)
      space.push_back({engine.id, {{"k", std::to_string(k)}}});
    return space;
  }
  bool can_build_ahead() override { return !build_ahead_folder().empty(); }
  bool build_ahead(const Graph& graph, const EngineInfo& engine) override {
    if (build_ahead_folder().empty() || engine.id != "ok") return false;
    std::ofstream(build_ahead_folder() / (graph.name + "." + engine.id + "." + std::to_string(getpid())));
    return true;
  }
  // A marker <graph>.<plan>.<pid> in the folder's plans/: which process built which candidate.
  bool build_plan_ahead(const Graph& graph, const PlanSpec& spec) override {
    if (build_ahead_folder().empty() || spec.engine_id != "ok") return false;
    const auto plans = build_ahead_folder() / "plans";
    std::filesystem::create_directories(plans);
    std::ofstream(plans / (graph.name + "." + spec.name() + "." + std::to_string(getpid())));
    return true;
  }
  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    // Like a compile that another process holds: the heuristic plan waits for build_ahead's
    // marker, an oracle candidate (a plan with knobs) for build_plan_ahead's.
    if (const auto folder = build_ahead_folder(); !folder.empty() && spec.engine_id == "ok") {
      const auto where = spec.knobs.empty() ? folder : folder / "plans";
      for (int waited_ms = 0; waited_ms < 20'000 && !built_ahead(where, graph.name, spec.name());
           waited_ms += 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // One line per row on stderr: what an isolated child's stderr tail shows (the tests check that
    // a worker's tail holds the graph it died in, not the ones before).
    std::fprintf(stderr, "crashtest: built %s for graph %s\n", spec.engine_id.c_str(), graph.name.c_str());
    auto reference_spec = reference_->heuristic_plan(graph, reference_->engines(graph).front());
    return std::make_unique<FailingPlan>(spec.engine_id, fails_in(graph), planted_slowdown(graph), spin_ms(),
                                         reference_->build(graph, reference_spec));
  }

 private:
  std::unique_ptr<Provider> reference_ = make_reference_provider();
};

}  // namespace

std::unique_ptr<Provider> make_crashtest_provider() {
  return std::make_unique<CrashtestProvider>();
}

}  // namespace dnnbench
