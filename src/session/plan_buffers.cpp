#include "session/plan_buffers.hpp"

#include <algorithm>
#include <stdexcept>

#include "tensor/fill.hpp"

namespace dnnbench {
namespace {

// The placement's generator: independent of the fills' (tensor/fill.hpp), so that the data are
// the same at every placement and only the addresses change.
std::uint64_t placement_state(Placement p) {
  std::uint64_t state = p.seed ^ (0x9e3779b97f4a7c15ull * (p.index + 1));
  splitmix64(state);
  return state;
}

std::size_t draw(std::uint64_t& state, std::size_t choices) {
  return choices == 0 ? 0 : static_cast<std::size_t>(splitmix64(state) % choices);
}

// Where in its allocation a device buffer starts: 0 at the plain placement.
std::size_t device_offset(const Placement& p, std::uint64_t& state) {
  return p.index == 0 ? 0 : kDeviceOffsetStep * draw(state, kDeviceMaxOffset / kDeviceOffsetStep);
}

}  // namespace

PlanBuffers::PlanBuffers(const GraphData& data, Provider& provider, Stream& stream, Placement placement,
                         std::size_t workspace_bytes)
    : graph_(data.graph()), placement_(placement) {
  const bool on_host = provider.device() == DeviceKind::host;
  const auto& outputs = graph_.output_uids();
  std::uint64_t rng = placement_state(placement);
  for (auto uid : graph_.input_uids())
    if (graph_.tensor(uid).is_by_value()) scalars_[uid] = *graph_.tensor(uid).scalar_value;
  for (auto& [uid, value] : scalars_) bindings_.buffers[uid] = &value;
  if (on_host) {
    if (placement.index > 0) host_spacer_.resize(kPageSize * (1 + draw(rng, kHostSpacerMaxPages)));
    // A host provider reads and may write its buffers in place: it gets private copies of the
    // inputs, and its outputs.
    for (const auto& [uid, tensor] : data.inputs()) tensors_.emplace(uid, tensor);
    for (auto uid : outputs) tensors_.emplace(uid, HostTensor(graph_.tensor(uid)));
    poison_outputs(provider, stream);
    for (auto& [uid, tensor] : tensors_) bindings_.buffers[uid] = tensor.data();
    return;
  }
  if (placement.index > 0) {
    const auto steps = 1 + draw(rng, kDeviceSpacerSteps);
    device_spacer_ = provider.allocate(steps * kDeviceSpacerStep);
    if (!device_spacer_)
      throw std::runtime_error("the provider allocated no device memory for a placement spacer");
  }
  // A device provider's private copies are on the device, filled from the graph's inputs. Host
  // copies of its outputs are made only when fetched: zeroing a perf-sized one each row cost
  // ~1 ms per MiB on the H200 (4.7 s of a 89 s suite), for rows compared on the device.
  for (const auto& [uid, tensor] : data.inputs())
    if (std::find(outputs.begin(), outputs.end(), uid) == outputs.end())  // an output is poisoned instead
      provider.copy_to_device(allocate_device(provider, uid, tensor.size_bytes(), rng), tensor.data(),
                              tensor.size_bytes(), stream);
  for (auto uid : outputs) {
    require_storage(graph_.tensor(uid));
    allocate_device(provider, uid, static_cast<std::size_t>(graph_.tensor(uid).storage_bytes()), rng);
  }
  if (placement.index > 0 && workspace_bytes > 0) {
    const std::size_t offset = device_offset(placement, rng);
    device_workspace_ = provider.allocate(workspace_bytes + offset);
    if (!device_workspace_)
      throw std::runtime_error("the provider allocated no device memory for a workspace");
    bindings_.workspace = static_cast<std::byte*>(device_workspace_->data()) + offset;
  }
  poison_outputs(provider, stream);
}

void* PlanBuffers::allocate_device(Provider& provider, std::int64_t uid, std::size_t bytes,
                                   std::uint64_t& rng) {
  const std::size_t offset = device_offset(placement_, rng);
  auto buffer = provider.allocate(bytes + offset);
  if (!buffer) throw std::runtime_error("the provider allocated no device memory");
  void* at = static_cast<std::byte*>(buffer->data()) + offset;
  bindings_.buffers[uid] = at;
  device_at_[uid] = at;
  device_.emplace(uid, std::move(buffer));
  return at;
}

const void* PlanBuffers::device_data(std::int64_t uid) const {
  const auto it = device_at_.find(uid);
  return it == device_at_.end() ? nullptr : it->second;
}

HostTensor& PlanBuffers::host_copy(std::int64_t uid) {
  auto it = tensors_.find(uid);
  if (it == tensors_.end()) it = tensors_.emplace(uid, HostTensor(graph_.tensor(uid))).first;
  return it->second;
}

void PlanBuffers::poison_outputs(Provider& provider, Stream& stream) {
  for (auto uid : graph_.output_uids()) {
    if (device_.empty()) {
      tensors_.at(uid).poison();
      continue;
    }
    // On the device a memset of NaN bytes where the type has them: a perf-sized output poisoned
    // on the host and uploaded cost several ms a row on the H200, twice (at construction, and
    // again before the checked run).
    const auto& desc = graph_.tensor(uid);
    void* device = device_at_.at(uid);
    const auto nan_byte = nan_fill_byte(desc.dtype);
    if (nan_byte &&
        provider.set_device_bytes(device, *nan_byte, static_cast<std::size_t>(desc.storage_bytes()), stream))
      continue;
    auto& tensor = host_copy(uid);
    tensor.poison();
    provider.copy_to_device(device, tensor.data(), tensor.size_bytes(), stream);
  }
  stream.synchronize();
}

void PlanBuffers::fetch_outputs(Provider& provider, Stream& stream) {
  if (device_.empty()) return;
  for (auto uid : graph_.output_uids()) {
    auto& tensor = host_copy(uid);
    provider.copy_to_host(tensor.data(), device_at_.at(uid), tensor.size_bytes(), stream);
  }
  stream.synchronize();
}

}  // namespace dnnbench
