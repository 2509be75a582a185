#include "providers/provider.hpp"

namespace dnnbench {

std::string PlanSpec::name() const {
  std::string text = engine_id;
  for (const auto& knob : knobs) text += "_" + knob.name + "=" + knob.value;
  return text;
}

void* Bindings::at(std::int64_t uid) const {
  auto it = buffers.find(uid);
  if (it == buffers.end()) throw std::out_of_range("no buffer bound for tensor uid " + std::to_string(uid));
  return it->second;
}

}  // namespace dnnbench
