#pragma once
// `dnnbench import FILE... -o DIR`: MIOpenDriver command files, benchdnn batch files and ONNX
// models -> graph JSON files + DIR/manifest.json (input/manifest.hpp). `dnnbench export --miopen`:
// the MIOpenDriver line of a graph.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "input/import.hpp"

namespace dnnbench {

struct ImportCommand {
  std::vector<std::string> sources;
  std::string output;
  std::string format;             // empty: by the file (input/import.hpp detect_source_format)
  std::vector<std::string> dims;  // --dim NAME=VALUE
  std::string dtype;              // --dtype half|bfloat16 (ONNX): fp32 data tensors become this type
  std::string layout = "nchw";    // --layout nchw|nhwc (ONNX): how convolution tensors are stored
  bool backward = false;          // --backward (ONNX): add the gradients' graphs
  bool quiet = false;
};

struct ExportCommand {
  std::vector<std::string> graphs;
  bool miopen = false;
};

void add_import_options(CLI::App& app, ImportCommand& command);
int execute_import(const ImportCommand& command);
void add_export_options(CLI::App& app, ExportCommand& command);
int execute_export(const ExportCommand& command);

// --dim NAME=VALUE, repeatable: the option both `import` and `run` take.
void add_dim_option(CLI::App& app, std::vector<std::string>& dims);
// The --dim values as import options; throws UsageError when one is malformed.
ImportOptions import_options_from(const std::vector<std::string>& dims);

}  // namespace dnnbench
