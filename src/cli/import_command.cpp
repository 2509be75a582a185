#include "cli/import_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>

#include "cli/commands.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "input/import.hpp"
#include "input/inputs.hpp"
#include "input/manifest.hpp"
#include "input/miopen_driver.hpp"

namespace dnnbench {
namespace {

std::optional<SourceFormat> format_from_name(const std::string& name) {
  if (name == "miopen") return SourceFormat::miopen_driver;
  if (name == "benchdnn") return SourceFormat::benchdnn;
  if (name == "onnx") return SourceFormat::onnx;
  if (name == "onednn-verbose") return SourceFormat::onednn_verbose;
  if (name == "cudnn-log") return SourceFormat::cudnn_api_log;
  return std::nullopt;
}

}  // namespace

void add_dim_option(CLI::App& app, std::vector<std::string>& dims) {
  app.add_option(
      "--dim", dims,
      "Value of a symbolic ONNX dimension, NAME=VALUE (repeat for each, e.g. --dim batch=8 --dim seq=128)");
}

ImportOptions import_options_from(const std::vector<std::string>& dims) {
  ImportOptions options;
  for (const auto& text : dims) {
    try {
      const auto [name, value] = parse_dim_assignment(text);
      options.dims[name] = value;
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  return options;
}

void add_import_options(CLI::App& app, ImportCommand& c) {
  app.add_option(
         "sources", c.sources,
         "MIOpenDriver command files, benchdnn batch files or descriptors files, ONNX models (.onnx), "
         "oneDNN verbose logs (ONEDNN_VERBOSE=1 output), cuDNN API logs (CUDNN_LOGLEVEL_DBG=3)")
      ->required();
  app.add_option("-o,--output", c.output, "Folder to write the graph files and manifest.json into")
      ->required();
  app.add_option("--format", c.format, "Read every source as this format (default: recognised per file)")
      ->check(CLI::IsMember({"miopen", "benchdnn", "onnx", "onednn-verbose", "cudnn-log"}));
  add_dim_option(app, c.dims);
  app.add_option(
         "--dtype", c.dtype,
         "ONNX: make the model's fp32 data tensors this type, as mixed precision runs them (batch-norm "
         "statistics and compute stay fp32)")
      ->check(CLI::IsMember({"half", "bfloat16", "float"}));
  app.add_option(
         "--layout", c.layout,
         "ONNX: store convolution, pooling and batch-norm tensors NCHW (default) or channels-last (NHWC)")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  app.add_flag(
      "--backward", c.backward,
      "ONNX: also import each convolution's backward-data and backward-weights graphs, each matmul's "
      "two gradient matmuls and each attention's backward (training)");
  app.add_flag("-q,--quiet", c.quiet, "Print nothing but errors");
}

int execute_import(const ImportCommand& c) {
  ImportOptions options = import_options_from(c.dims);
  if (!c.dtype.empty() && c.dtype != "float") options.float_type = parse_dtype(c.dtype);
  options.channels_last = c.layout == "nhwc";
  options.backward = c.backward;
  std::vector<std::pair<std::string, ImportResult>> results;
  for (const auto& source : c.sources) {
    std::optional<SourceFormat> format =
        c.format.empty() ? detect_source_format(source) : format_from_name(c.format);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(source, ec)) {
      fmt::print(std::cerr, "dnnbench: {}: no such file\n", source);
      return kExitError;
    }
    if (!format) {
      fmt::print(
          std::cerr,
          "dnnbench: {}: not an import source (expected MIOpenDriver command lines, benchdnn options and "
          "descriptors, or an .onnx model); give --format to say which\n",
          source);
      return kExitError;
    }
    try {
      results.emplace_back(source, import_source(source, *format, options));
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      return kExitError;
    }
  }
  const Manifest manifest = build_manifest(results);
  try {
    write_manifest(c.output, manifest);
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "dnnbench: {}\n", e.what());
    return kExitError;
  }
  if (!c.quiet) {
    std::int64_t layers = 0;
    for (const auto& g : manifest.graphs) layers += g.count;
    fmt::print("imported {} layer{} from {} source{} as {} distinct graph{} into {}\n", layers,
               layers == 1 ? "" : "s", c.sources.size(), c.sources.size() == 1 ? "" : "s",
               manifest.graphs.size(), manifest.graphs.size() == 1 ? "" : "s", c.output);
    if (!manifest.not_imported.empty()) {
      fmt::print("not imported: {}\n", manifest.not_imported.size());
      for (const auto& s : manifest.not_imported) fmt::print("  {}  {}: {}\n", s.source, s.op, s.reason);
    }
    fmt::print("manifest: {}\n", (std::filesystem::path(c.output) / std::string(kManifestFileName)).string());
  }
  return kExitOk;
}

void add_export_options(CLI::App& app, ExportCommand& c) {
  app.add_option("-g,--graph", c.graphs, "Graph files or folders")->required();
  app.add_flag("--miopen", c.miopen, "Write each graph as a MIOpenDriver command line")->required();
}

int execute_export(const ExportCommand& c) {
  int status = kExitOk;
  for (const auto& input : expand_graph_inputs(c.graphs).inputs) {
    try {
      if (input.error) throw std::runtime_error(*input.error);
      Graph graph = read_graph_file(input.file);
      graph.source_path = input.path;
      validate_graph(graph);
      fmt::print("{}\n", miopen_driver_line(graph));
    } catch (const std::exception& e) {
      fmt::print(std::cerr, "dnnbench: {}\n", e.what());
      status = kExitError;
    }
  }
  return status;
}

}  // namespace dnnbench
