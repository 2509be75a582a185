#pragma once
// Provider registry: the providers built into this binary, by name.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "providers/provider.hpp"

namespace dnnbench {

struct ProviderEntry {
  std::string name;
  std::function<std::unique_ptr<Provider>()> make;
};

// Every provider compiled in, in default order.
const std::vector<ProviderEntry>& provider_registry();
// nullptr when no provider of that name is built.
std::unique_ptr<Provider> make_provider(const std::string& name);

}  // namespace dnnbench
