#include "cli/child_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "cli/commands.hpp"
#include "cli/distributed_command.hpp"
#include "cli/import_command.hpp"
#include "distribute/build_ahead.hpp"
#include "input/import_inputs.hpp"
#include "isolate/child_protocol.hpp"
#include "isolate/isolation.hpp"

namespace dnnbench {

void add_child_options(CLI::App& app, ChildCommand& c) {
  app.add_option("role", c.role)->required();
  app.add_option("request", c.request)->required();
}

int execute_child(const ChildCommand& c, const std::string& program) {
  ChildRequest request;
  try {
    request = read_child_request(c.request);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (child_role_name(request.role()) != c.role)
    throw UsageError(fmt::format("{}: a request of role {}, started as role {}", c.request,
                                 child_role_name(request.role()), c.role));
  // The run's arguments, parsed as `run` parses them (cli/main.cpp): one set of options for the
  // parent and every child.
  RunCommand run;
  CLI::App app{"dnnbench run", "run"};
  add_run_options(app, run);
  auto arguments = effective_run_arguments(request);
  std::vector<std::string> command_line{program, "run"};
  command_line.insert(command_line.end(), arguments.begin(), arguments.end());
  std::reverse(arguments.begin(), arguments.end());  // CLI11 takes a vector last argument first
  try {
    app.parse(arguments);
  } catch (const CLI::ParseError& e) {
    throw UsageError(fmt::format("{}: run_arguments: {}", c.request, e.what()));
  }
  if (const auto* pass = std::get_if<RepeatPass>(&request.job)) {
    run.repeat_pass = pass->pass;
    return execute_run(run, command_line);
  }
  if (const auto* profiled = std::get_if<ProfiledPlan>(&request.job)) {
    run.profile_child_plan = profiled->plan;
    return execute_run(run, command_line);
  }
  resolve_run_options(run);
  if (const auto* graph = std::get_if<GraphJob>(&request.job)) return run_isolated_child(*graph, run.options);
  if (std::holds_alternative<WorkerJobs>(request.job)) return run_isolated_worker(run.options);
  // build-ahead: the parent's graphs and shard; no output.
  const auto& part = std::get<BuildAheadPart>(request.job);
  const auto inputs = expand_inputs(run.graphs, run.options.archive, import_options_from(run.dims), nullptr);
  const auto shard = shard_inputs(run, inputs.inputs);
  return run_build_ahead_child(inputs.inputs, shard ? &*shard : nullptr, run.options, part);
}

}  // namespace dnnbench
