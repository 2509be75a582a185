#pragma once
// Run metadata: what made the numbers (tool, host, libraries, environment), for every result.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/run_options.hpp"

namespace dnnbench {

// `argv` is the full command line; provider versions are read from the providers selected.
nlohmann::json collect_metadata(const std::vector<std::string>& argv, const RunOptions& options);
// Environment variables that change library selection or threading, with unset ones as null.
nlohmann::json selection_environment();
// ISO 8601 UTC timestamp of now, e.g. "2026-11-30T16:25:11Z".
std::string utc_timestamp();

}  // namespace dnnbench
