#pragma once
// The wall-clock time results, calibrations and compiled plans are stamped with.
#include <string>

namespace dnnbench {

// ISO 8601 UTC timestamp of now, e.g. "2026-11-30T16:25:11Z".
std::string utc_timestamp();

}  // namespace dnnbench
