#pragma once
// Converters from real-workload descriptions to hipDNN graphs: MIOpenDriver command lines
// (miopen_driver.cpp), benchdnn problem descriptors and batch files (benchdnn.cpp) and ONNX
// models (onnx_model.cpp, when built with libonnx). Each converter turns one source file into
// graphs, each naming where it came from, plus what it could not import and why; manifest.hpp
// merges identical layers and writes the graphs and DIR/manifest.json.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor/dtype.hpp"

namespace dnnbench {

// One layer taken from a source: its graph and where it came from.
struct ImportedGraph {
  nlohmann::json graph;    // hipDNN graph JSON
  std::string source;      // "file:line", or "model.onnx:node_name[,node_name...]"
  std::int64_t count = 1;  // identical layers this one stands for (a MIOpenDriver repeat count)
};

// Something the source holds that does not become a graph, and why.
struct NotImported {
  std::string source;  // "file:line" or "model.onnx:node_name"
  std::string op;      // the command, descriptor kind or ONNX op
  std::string reason;
};

struct ImportResult {
  std::vector<ImportedGraph> graphs;
  std::vector<NotImported> not_imported;
};

struct ImportOptions {
  std::map<std::string, std::int64_t> dims;  // --dim NAME=VALUE: values of symbolic ONNX dimensions
  // ONNX only (docs/import.md). --dtype: fp32 data tensors become this type (half, bfloat16), as a
  // mixed-precision run has them; batch-norm statistics and compute stay fp32.
  std::optional<DataType> float_type = std::nullopt;
  // --layout nhwc: the activations and filters of convolutions, pooling and batch norm are stored
  // channels-last (NHWC / KRSC), as frameworks run fp16 / bf16 CNNs on tensor cores.
  bool channels_last = false;
  // --backward: each convolution also gives its backward-data and backward-weights graphs, each
  // matmul the two matmuls of its gradients, each attention its SdpaBackward graph.
  bool backward = false;
};

enum class SourceFormat { miopen_driver, benchdnn, onnx, onednn_verbose, cudnn_api_log };

// What kind of source `path` is: `.onnx` by its extension; a text file by its first command
// (MIOpenDriver lines start with a driver command such as `conv`, benchdnn lines with `--`); a
// oneDNN verbose log by any of its first lines starting `onednn_verbose,` or `dnnl_verbose,` (a
// program's own output may come first); a cuDNN API log by a block header among its first lines
// (`I! CuDNN (v91900 75) function ...`).
// nullopt for graph JSON, archives and everything else.
std::optional<SourceFormat> detect_source_format(const std::filesystem::path& path);

// Converts one source file. Malformed input throws InputError naming the file and the line
// (or ONNX node) and what is wrong.
ImportResult import_source(const std::filesystem::path& path, SourceFormat format,
                           const ImportOptions& options);

// Whether this binary was built with the ONNX importer (libonnx found at configure time).
bool onnx_import_available();

// The converters (one file each).
ImportResult import_miopen_driver_text(const std::string& text, const std::string& file);
ImportResult import_onnx_file(const std::filesystem::path& path, const ImportOptions& options);

// "NAME=VALUE" of --dim; throws std::invalid_argument with a message when malformed.
std::pair<std::string, std::int64_t> parse_dim_assignment(const std::string& text);

}  // namespace dnnbench
