#pragma once
// oneDNN verbose logs -> hipDNN graphs (docs/import.md, "oneDNN verbose logs"). A framework run
// with ONEDNN_VERBOSE=1 (DNNL_VERBOSE=1 before oneDNN 2.5) prints one line per primitive
// execution: its kind, implementation, propagation kind, memory descriptors, attributes, problem
// and time. Each distinct problem that executed becomes one graph, counted by its executions, so
// that a capture of a training step or an inference pass is a weighted suite of what the
// framework actually ran. Primitives the graph format has no node for are counted per kind with
// the reason. The problem is handed to the benchdnn converter (input/benchdnn.hpp), whose
// descriptor grammar the verbose line shares.
#include <filesystem>
#include <string>
#include <string_view>

#include "input/import.hpp"

namespace dnnbench {

// Whether a line is one of oneDNN's verbose lines (`onednn_verbose,...` or `dnnl_verbose,...`).
bool is_onednn_verbose_line(std::string_view line);

// Reads a verbose log line by line (memory bounded by the number of distinct problems, not by the
// log's length); lines of other output interleaved with it are skipped. A malformed execution
// line is reported as not imported with its line number; the rest of the log is still read.
ImportResult import_onednn_verbose_file(const std::filesystem::path& path);
// The same from text already read (tests, fuzzing); `file` names it in sources.
ImportResult import_onednn_verbose_text(const std::string& text, const std::string& file);

}  // namespace dnnbench
