#pragma once
// cuDNN API logs -> hipDNN graphs (docs/import.md, "cuDNN API logs"). A program run with
// CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=FILE logs every cuDNN call (input/cudnn_log_calls.hpp);
// since cuDNN 9, finalizing an operation graph also logs the whole graph as JSON
// (cudnnBackendFinalizeGraphVisualize, `apiLog: type=json; val={"schemaVersion":4,
// "operationGraph":{...}}`), and executing a plan logs the graph it runs
// (cudnnBackendExecuteGraphVisualize). Each distinct operation graph becomes one graph, counted by
// its executions where the log has them, else by its finalizations, with the process, thread and
// handle that ran it. Operations the graph format has no node for are counted per kind with the
// reason; a graph holding one is not imported.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "input/import.hpp"

namespace dnnbench {

// Whether a line is the header of a cuDNN API log block (`I! CuDNN (v91900 75) function ...`).
bool is_cudnn_api_log_line(std::string_view line);

// Reads a log line by line in bounded memory (the distinct graphs, not the log's length). A block
// cut short (a log truncated mid-call, or another thread's block interleaved into it) is skipped
// and reported with its line; so is a graph JSON that does not parse or has another schema version.
ImportResult import_cudnn_api_log_file(const std::filesystem::path& path);
// The same from text already read (tests, fuzzing); `file` names it in sources.
ImportResult import_cudnn_api_log_text(const std::string& text, const std::string& file);

// One logged operation graph (the `operationGraph` object of schema version 4) as a hipDNN graph
// named `name`. Throws std::invalid_argument naming the operation or tensor that does not map.
nlohmann::json cudnn_operation_graph_to_hipdnn(const nlohmann::json& operation_graph,
                                               const std::string& name);

}  // namespace dnnbench
