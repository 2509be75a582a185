#pragma once
// This machine's host name (gethostname), as results, shards and compile claims record it.
#include <string>

namespace dnnbench {

std::string this_host_name();

}  // namespace dnnbench
