#include "run/graph_data.hpp"

#include "measure/host_timer.hpp"
#include "tensor/fill.hpp"

namespace dnnbench {

GraphData::GraphData(const Graph& graph, std::uint64_t seed) : graph_(graph), cost_(graph_cost(graph)) {
  for (auto uid : graph.input_uids()) {
    const auto& desc = graph.tensor(uid);
    if (desc.is_by_value()) continue;
    HostTensor tensor(desc);
    tensor.from_dense(seeded_values(desc, fill_range_for(graph, uid), seed));
    inputs_.emplace(uid, std::move(tensor));
  }
}

const Values& GraphData::reference() {
  if (reference_) return *reference_;
  HostTimer timer;
  Values values;
  for (auto uid : graph_.input_uids()) {
    const auto& desc = graph_.tensor(uid);
    if (desc.is_by_value())
      values[uid] = Dense(desc.dims, *desc.scalar_value);
    else
      values[uid] = inputs_.at(uid).to_dense();  // exactly what the libraries read
  }
  run_reference(graph_, values);
  reference_seconds_ = timer.elapsed_ms() / 1e3;
  reference_ = std::move(values);
  return *reference_;
}

}  // namespace dnnbench
