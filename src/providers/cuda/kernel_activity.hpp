#pragma once
// CUPTI kernel activity: the kernels a plan's executions launched (name, grid, block, device
// start and end), so a row can say what the library actually ran and time it without launch gaps.
// CUPTI is loaded at run time (dlopen), like NVML: without it (or without its headers at build
// time) make_cupti_recorder() returns nullptr and rows carry no kernel list.
#include <memory>
#include <string>

#include "providers/provider.hpp"

namespace dnnbench::cuda {

// nullptr when CUPTI cannot be used here; `why_not` then says why.
std::unique_ptr<KernelRecorder> make_cupti_recorder(std::string& why_not);

}  // namespace dnnbench::cuda
