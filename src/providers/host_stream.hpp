#pragma once
// The stream of a provider whose executions finish before execute() returns (the reference, a
// host LibTorch, a provider that could not load): nothing to wait for.
#include "providers/provider.hpp"

namespace dnnbench {

class SynchronousHostStream final : public Stream {
 public:
  void synchronize() override {}
};

}  // namespace dnnbench
