#pragma once
// `dnnbench calibrate --peaks`: the peaks this machine achieves, measured: a large matmul per data
// type (FLOP/s) and a large elementwise add (bytes/s), on every engine of each provider, the
// fastest taken. Runs record them as metadata.measured_peaks; % of peak then uses them
// (report/peaks.hpp) instead of the table or ISA figures, which no real kernel reaches.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "session/run_options.hpp"

namespace dnnbench {

struct MeasuredPeak {
  std::string provider, device, data_type;
  std::optional<double> matrix_flops, vector_flops;  // a GPU's matmul: matrix; a CPU's: vector
  std::optional<double> bytes_per_s;
  std::string flops_engine, bandwidth_engine;  // which engines reached them
  std::optional<std::string> error;
};

std::vector<MeasuredPeak> measure_peaks(const std::vector<std::string>& providers, const RunOptions& options);
nlohmann::json measured_peaks_to_json(const std::vector<MeasuredPeak>& peaks);
// The calibration file's "peaks", each with "file": its path; null when there are none.
nlohmann::json load_measured_peaks(const std::string& calibration_path);

}  // namespace dnnbench
