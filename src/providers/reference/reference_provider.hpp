#pragma once
// The `reference` provider: the tool's own fp64 CPU implementation run as an engine. It runs on
// every machine (no library needed) and gives a naive baseline time; its outputs are rounded to
// the output types, so its check measures only that rounding.
#include <memory>

#include "providers/provider.hpp"

namespace dnnbench {

std::unique_ptr<Provider> make_reference_provider();

}  // namespace dnnbench
