#pragma once
// Peak figures of the device a row ran on, for its graph's data type, and the share of them a
// row achieved. GPUs: a table of known architectures (FLOP per SM per clock) and devices (DRAM
// bandwidth), scaled to the SM clock measured while the row ran. CPUs: ISA x clock x cores.
// Measured peaks (`dnnbench calibrate --peaks`, recorded in the metadata) take precedence.
// Nothing here measures: every figure comes from the results and their metadata.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

// The peaks for `row` of `graph` from the run's `metadata` (gpu, providers, host, measured_peaks);
// nullopt when the device is not known or the graph's data type is not recorded.
std::optional<PeakFigures> peak_for_row(const nlohmann::json& metadata, const GraphResult& graph,
                                        const RowResult& row);
// Gives every timed row without peak figures its figures (a run before writing; a report of a file
// written before peaks were recorded).
void attach_peaks(SuiteResult& suite);

// The time throughputs are computed from: kernel time where there is one, else host time.
const std::optional<Stats>& primary_stats(const RowResult& row);
std::optional<double> achieved_flops(const RowResult& row);        // FLOP/s at the median
std::optional<double> achieved_bytes_per_s(const RowResult& row);  // analytical bytes / median

struct PeakShare {
  std::optional<double> flops;      // achieved / peak FLOP/s (0.42: 42%)
  std::string flops_basis;          // "matrix" (tensor cores, AMX) or "vector"
  std::optional<double> bandwidth;  // achieved / DRAM bytes per second
};
// Against the matrix units for graphs with a convolution or matmul where the device has them for
// the data type, else against the vector units.
PeakShare peak_share(const GraphResult& graph, const RowResult& row);

}  // namespace dnnbench
