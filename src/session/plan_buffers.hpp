#pragma once
// The buffers one plan binds, and where they lie (their placement).
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "providers/provider.hpp"
#include "session/graph_data.hpp"
#include "tensor/host_tensor.hpp"
#include "tensor/page_aligned.hpp"

namespace dnnbench {

// Where a plan's buffers are put. One process is one sample of where its buffers lie (L2 sets,
// pages, HBM channels: docs/methodology.md, "Placement"); a measurement that must survive a
// re-run samples several placements. Placement 0 is the plain one (allocations in order, at the
// allocator's own alignment); placement k > 0 first takes a spacer of a seeded random size, so
// the buffers land on other pages while the previous placement's are still held, and on the device
// starts each buffer at a seeded random offset (a multiple of kDeviceOffsetStep) in its allocation.
struct Placement {
  std::uint64_t index = 0;  // 0: plain
  std::uint64_t seed = 0;   // with index, decides the spacer and the offsets
};

// Device offsets keep cudaMalloc's own 256-byte alignment (what every library's pointer
// alignment requirement is met by), and stay below 64 KiB: enough to move a buffer across L2 set
// groups and DRAM channels without growing small tensors much.
inline constexpr std::size_t kDeviceOffsetStep = 256;
inline constexpr std::size_t kDeviceMaxOffset = 64 * 1024;
// Spacers: up to 32 MiB in 2 MiB steps on the device (the granularity of its physical pages), up to
// 4 MiB in pages on the host (page-aligned tensors keep their offsets modulo the page:
// tensor/page_aligned.hpp says why that matters on the CPU).
inline constexpr std::size_t kDeviceSpacerStep = 2u << 20;
inline constexpr std::size_t kDeviceSpacerSteps = 16;
inline constexpr std::size_t kHostSpacerMaxPages = 1024;

// Private copies of the inputs (a library that writes its inputs cannot corrupt other plans),
// outputs, and by-value scalars (bound by host pointer). For device providers each tensor also
// gets a device buffer, filled from the host copy.
class PlanBuffers {
 public:
  // `workspace_bytes`: at a placement other than the plain one, device providers also get a
  // workspace of that size there (Bindings::workspace); the plain one leaves the plan its own.
  PlanBuffers(const GraphData& data, Provider& provider, Stream& stream, Placement placement = {},
              std::size_t workspace_bytes = 0);
  PlanBuffers(const PlanBuffers&) = delete;
  PlanBuffers& operator=(const PlanBuffers&) = delete;
  const Bindings& bindings() const { return bindings_; }
  const Placement& placement() const { return placement_; }
  // The host copy of `uid`: the inputs' and outputs' own buffers for host providers; for device
  // providers, an output as fetch_outputs() last brought it back.
  const HostTensor& host(std::int64_t uid) const { return tensors_.at(uid); }
  // The device buffer of `uid` (at its placement's offset); nullptr for host providers.
  const void* device_data(std::int64_t uid) const;
  // NaN (floats) or a sentinel (integers) into every output (its device buffer, for device
  // providers), so that elements a plan does not write fail the check.
  void poison_outputs(Provider& provider, Stream& stream);
  // Brings the outputs back to the host copies (a no-op for host providers).
  void fetch_outputs(Provider& provider, Stream& stream);

 private:
  HostTensor& host_copy(std::int64_t uid);  // made on first use
  void* allocate_device(Provider& provider, std::int64_t uid, std::size_t bytes, std::uint64_t& rng);

  const Graph& graph_;
  Placement placement_;
  std::map<std::int64_t, HostTensor> tensors_;
  std::map<std::int64_t, double> scalars_;
  std::map<std::int64_t, std::unique_ptr<DeviceBuffer>> device_;
  std::map<std::int64_t, void*> device_at_;  // each device buffer's bound address
  std::unique_ptr<DeviceBuffer> device_spacer_, device_workspace_;
  std::vector<std::byte, PageAligned<std::byte>> host_spacer_;
  Bindings bindings_;
};

}  // namespace dnnbench
