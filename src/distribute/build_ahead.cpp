#include "distribute/build_ahead.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "providers/registry.hpp"
#include "run/graph_loader.hpp"
#include "run/suite_runner.hpp"

namespace dnnbench {
namespace {

std::vector<std::unique_ptr<Provider>> providers_that_build_ahead(const RunOptions& options) {
  std::vector<std::unique_ptr<Provider>> out;
  for (const auto& name : options.providers.empty() ? default_provider_names() : options.providers) {
    try {
      auto provider = make_provider(name, options.provider_settings);
      if (provider && provider->unusable_reason().empty() && provider->can_build_ahead())
        out.push_back(std::move(provider));
    } catch (const std::exception&) {  // a provider that cannot start builds nothing
    }
  }
  return out;
}

// True once the parent has closed our stdin: the suite is over.
bool parent_done() {
  pollfd entry{STDIN_FILENO, POLLIN, 0};
  if (poll(&entry, 1, 0) <= 0) return false;
  char byte;
  return read(STDIN_FILENO, &byte, 1) <= 0;
}

// The child writes nothing anyone reads: a library that logs (CUDNN_LOGDEST_DBG=stderr) must not
// fill a pipe and stall the compile that a row waits for.
void silence_output() {
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null < 0) return;
  dup2(null, STDOUT_FILENO);
  dup2(null, STDERR_FILENO);
  close(null);
}

}  // namespace

int default_compile_ahead_children() {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(cores / 4, 1, 4);
}

BuildAheadChildren::BuildAheadChildren(const RunOptions& options,
                                       const std::vector<std::string>& run_arguments, int count) {
  if (count <= 0 || providers_that_build_ahead(options).empty()) return;
  for (int k = 1; k <= count; ++k) {
    try {
      if (!folder_) folder_.emplace("dnnbench-build-ahead");
      const auto argv = child_command({run_arguments, BuildAheadPart{k, count}}, folder_->path());
      children_.push_back(std::make_unique<WorkerProcess>(argv, ChildOptions{}));
    } catch (const std::exception&) {  // the rows compile what no child does
      break;
    }
  }
}

BuildAheadChildren::~BuildAheadChildren() {
  for (auto& child : children_) child->close();
}

int run_build_ahead_child(const std::vector<GraphInput>& inputs, const std::vector<bool>* selected,
                          const RunOptions& options, const BuildAheadPart& part) {
  silence_output();
  auto providers = providers_that_build_ahead(options);
  if (providers.empty()) return 0;
  GraphLoader loader(options);
  const auto child = static_cast<std::size_t>(part.part - 1), children = static_cast<std::size_t>(part.parts);
  // With --oracle every child also walks every graph for the oracle's candidates: the j-th plan of
  // an engine's plan space is the (j mod N)-th child's, so the N children compile one row's
  // runtime-compiled candidates side by side (on the H200, 32 candidates of 0.3-0.7 s each were
  // 55 of the oracle's 57 s of builds over 17 workload graphs).
  const bool oracle_candidates = options.oracle.enabled && !options.oracle.aa_self_check;
  std::size_t position = 0;  // among the graphs this run runs
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (selected && !(*selected)[i]) continue;
    const bool mine = position++ % children == child;
    if (!mine && !oracle_candidates) continue;
    if (parent_done()) break;
    GraphResult scratch;
    std::optional<Graph> graph;
    try {
      graph = loader.load(inputs[i], scratch);
    } catch (const std::exception&) {
      continue;
    }
    if (!graph || !graph->unsupported_types().empty()) continue;
    for (auto& provider : providers) {
      try {
        const auto rows =
            row_engines(provider->engines(*graph), options, provider->name(), scratch.content_hash);
        if (mine)
          for (const auto& engine : rows.selection.engines) {
            if (parent_done()) return 0;
            try {
              provider->build_ahead(*graph, engine);
            } catch (const std::exception&) {  // the row builds it again and reports why
            }
          }
        if (!oracle_candidates) continue;
        for (const auto& engine : rows.selection.engines) {
          std::vector<PlanSpec> space;
          try {
            space = provider->plan_space(*graph, engine, SweepLimits{options.oracle.max_plans});
          } catch (const std::exception&) {  // the oracle asks again and reports why
            continue;
          }
          for (std::size_t j = child; j < space.size(); j += children) {
            if (parent_done()) return 0;
            try {
              provider->build_plan_ahead(*graph, space[j]);
            } catch (const std::exception&) {  // the oracle builds it again and records why
            }
          }
        }
      } catch (const std::exception&) {  // no engines: the row says why
      }
    }
  }
  return 0;
}

}  // namespace dnnbench
