#pragma once
// `dnnbench _child ROLE REQUEST.json`: how this binary runs as a child of itself for one role
// (isolate/child_protocol.hpp says which roles there are and how each reports back). Not listed by
// help: only a dnnbench parent starts it.
#include <CLI/CLI.hpp>

#include <string>

namespace dnnbench {

struct ChildCommand {
  std::string role, request;
};

void add_child_options(CLI::App& app, ChildCommand& command);
// Reads the request, parses its run arguments as `run` would, and does the role's work. Returns
// the exit code; a request that cannot be read or parsed is a usage error naming the file.
int execute_child(const ChildCommand& command, const std::string& program);

}  // namespace dnnbench
