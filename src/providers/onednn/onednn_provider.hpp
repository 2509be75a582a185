#pragma once
// The oneDNN provider: one graph = one oneDNN primitive (an anchor op plus fused post-ops),
// its engines = the implementations the primitive-descriptor iterator lists.
#include <memory>

#include "providers/provider.hpp"

namespace dnnbench {

std::unique_ptr<Provider> make_onednn_provider();

}  // namespace dnnbench
