#include "session/graph_data.hpp"

#include <algorithm>
#include <cctype>

#include "measure/host_timer.hpp"
#include "reference/gpu_reference.hpp"
#include "reference/magnitude.hpp"
#include "tensor/fill.hpp"

namespace dnnbench {

std::string sanitize_for_path(std::string_view text) {
  std::string out(text);
  for (auto& ch : out)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-')) ch = '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

std::string_view reference_kind_name(ReferenceKind kind) {
  return kind == ReferenceKind::gpu_fp32 ? "gpu-fp32" : "cpu-fp64";
}

GraphData::GraphData(const Graph& graph, std::uint64_t seed, bool allow_gpu_reference, FillKind fill)
    : graph_(graph),
      cost_(graph_cost(graph)),
      allow_gpu_reference_(allow_gpu_reference),
      dump_folder_(sanitize_for_path(graph.name)) {
  for (auto uid : graph.input_uids()) {
    const auto& desc = graph.tensor(uid);
    if (desc.is_by_value()) continue;
    HostTensor tensor(desc);
    fill_seeded(tensor, fill_range_for(graph, uid), seed, fill);
    inputs_.emplace(uid, std::move(tensor));
  }
}

ReferenceKind GraphData::reference_kind_for(DeviceKind device) {
  if (device != DeviceKind::cuda || !allow_gpu_reference_ || !has_gpu_reference_node(graph_))
    return ReferenceKind::cpu_fp64;
  if (!gpu_reference_usable_) gpu_reference_usable_ = gpu_reference_unavailable_reason().empty();
  return *gpu_reference_usable_ ? ReferenceKind::gpu_fp32 : ReferenceKind::cpu_fp64;
}

const DeviceReference* GraphData::device_reference(ReferenceKind kind, std::int64_t uid) {
  if (!device_compare_usable_) device_compare_usable_ = device_compare_unavailable_reason().empty();
  if (!*device_compare_usable_) return nullptr;
  const auto key = std::make_pair(static_cast<int>(kind), uid);
  auto it = device_reference_.find(key);
  if (it == device_reference_.end()) {
    try {
      it = device_reference_.emplace(key, upload_reference(reference(kind).at(uid))).first;
    } catch (const std::runtime_error&) {  // no room on the device: the host compares
      device_compare_usable_ = false;
      return nullptr;
    }
  }
  return it->second.get();
}

const Values& GraphData::reference(ReferenceKind kind) {
  auto& cached = reference_[static_cast<int>(kind)];
  if (cached) return *cached;
  HostTimer timer;
  cached = compute_reference(kind, false);
  reference_seconds_[static_cast<int>(kind)] = timer.elapsed_ms() / 1e3;
  return *cached;
}

const Values* GraphData::magnitude(ReferenceKind kind) {
  if (!magnitude_reference_applies(graph_)) return nullptr;
  auto& cached = magnitude_[static_cast<int>(kind)];
  if (!cached) {
    // Only the outputs are compared: the inputs' and intermediates' copies (fp64, perf-sized) go.
    cached = compute_reference(kind, true);
    const auto outputs = graph_.output_uids();
    std::erase_if(*cached, [&](const auto& kv) {
      return std::find(outputs.begin(), outputs.end(), kv.first) == outputs.end();
    });
  }
  return &*cached;
}

Values GraphData::compute_reference(ReferenceKind kind, bool absolute_inputs) const {
  Values values;
  for (auto uid : graph_.input_uids()) {
    const auto& desc = graph_.tensor(uid);
    if (desc.is_by_value())
      values[uid] = Dense(desc.dims, *desc.scalar_value);
    else
      values[uid] = inputs_.at(uid).to_dense();  // exactly what the libraries read
  }
  if (absolute_inputs) take_absolute_values(values);
  if (kind == ReferenceKind::gpu_fp32)
    run_reference(graph_, values, gpu_reference_node);
  else
    run_reference(graph_, values);
  return values;
}

}  // namespace dnnbench
