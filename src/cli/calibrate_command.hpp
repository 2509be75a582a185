#pragma once
// `dnnbench calibrate`: this machine's noise floor (env/calibration.hpp), printed as a table and
// written to a file that later runs record in their metadata.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace dnnbench {

struct CalibrateCommand {
  std::vector<std::string> graphs, providers;
  std::int64_t repeats = 5;
  std::string calibration_file;  // empty: the default path
  RunCommand settings;           // the measurement options shared with `run` (cli/option_table.hpp)
  bool peaks = false;            // --peaks: also measure achievable peaks (env/peak_calibration.hpp)
};

void add_calibrate_options(CLI::App& app, CalibrateCommand& command);
int execute_calibrate(CalibrateCommand& command);

}  // namespace dnnbench
