#pragma once
// The heater's kernel (providers/cuda/heater.hpp): tensor-core and memory work that draws a
// GPU's power limit, in blocks of a fixed wall time. Compiled by nvcc where the CUDA reference is.
#include <cuda_runtime.h>

namespace dnnbench::cuda {

// Threads of a heater block.
inline constexpr int kHeaterThreads = 256;

// Enqueues `blocks` heater blocks on `stream`: each runs `block_ns` nanoseconds of its device's
// global timer (wall time, whatever the power cap does to the clock), issuing bf16 MMAs on
// operands it varies with 16-byte loads that stream `data` (`vectors` 16-byte vectors, a power of
// two). A block of fixed length hands its SM to other streams' work at least that often.
cudaError_t launch_heater(cudaStream_t stream, int blocks, const void* data, unsigned long long vectors,
                          long long block_ns);
// Heater blocks one SM holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor), at least 1.
int heater_blocks_per_sm();

}  // namespace dnnbench::cuda
