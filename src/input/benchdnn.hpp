#pragma once
// oneDNN benchdnn problem descriptors and batch files -> hipDNN graphs (import.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "input/import.hpp"

namespace dnnbench {

// Whether a line's tokens look like a benchdnn command line or batch file line (options
// starting with `--`, after an optional `benchdnn` program name).
bool looks_like_benchdnn_line(const std::vector<std::string>& tokens);

// Reads a benchdnn command file or batch file; `--batch=FILE` inside it is read relative to its
// folder.
ImportResult import_benchdnn_file(const std::filesystem::path& path);

// One benchdnn command line's tokens (driver, options, descriptors; no --batch) converted as if
// it stood at `file`:`line`: the oneDNN verbose importer writes each problem it read this way.
ImportResult import_benchdnn_tokens(const std::vector<std::string>& tokens, const std::string& file,
                                    std::size_t line);

}  // namespace dnnbench
