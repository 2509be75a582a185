#pragma once
// The device's global timer (%globaltimer, nanoseconds of wall time), for kernels that wait or
// run for a wall-clock length whatever the power cap does to the SM clock.

namespace dnnbench::cuda {

__device__ inline unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

}  // namespace dnnbench::cuda
