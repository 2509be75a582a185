#pragma once
// The -g arguments of `run` with import sources among them: MIOpenDriver command files,
// benchdnn batch files and ONNX models are converted on the fly (into a temporary folder the
// result owns), and an import manifest (DIR/manifest.json, or DIR itself) stands for its graphs.
// Each converted graph's input path names its source ("nets.txt:3", "model.onnx:conv1"), so
// results do. Everything else goes through input/inputs.hpp unchanged.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "input/import.hpp"
#include "input/inputs.hpp"

namespace dnnbench {

// `layer_counts`, when given, receives the input path -> layers count of every graph that came
// from an import source or manifest (for the model summary, report/model_summary.hpp);
// `layer_models` the input path -> model -> occurrences of the same graphs (for the workload
// report, report/workload_report.hpp): an import source is one model, named by its file's stem;
// a manifest names each graph's models (input/manifest.hpp).
GraphInputs expand_inputs(const std::vector<std::string>& arguments, const ArchiveLimits& limits,
                          const ImportOptions& options,
                          std::map<std::string, std::int64_t>* layer_counts = nullptr,
                          std::map<std::string, std::map<std::string, std::int64_t>>* layer_models = nullptr);

}  // namespace dnnbench
