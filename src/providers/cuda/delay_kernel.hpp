#pragma once
// A device-side wait of known length (CudaStream::enqueue_delay), for a planted slowdown inside
// the timed replay (session/planted_slowdown.hpp). Compiled by nvcc where the CUDA reference is.
#include <cuda_runtime.h>

namespace dnnbench::cuda {

// One block of one thread that spins until the device's global timer has advanced `nanoseconds`
// (%globaltimer: wall time, so the wait does not stretch when the power cap lowers the SM clock).
cudaError_t launch_delay(cudaStream_t stream, long long nanoseconds);

}  // namespace dnnbench::cuda
