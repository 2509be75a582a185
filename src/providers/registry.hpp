#pragma once
// Provider registry: the providers built into this binary, by name.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "providers/provider.hpp"

namespace dnnbench {

// Settings of the providers from the command line; a provider reads only its own.
struct ProviderSettings {
  std::optional<std::string> cudnn_heur_mode;  // --heur-mode: "a", "b" or "fallback"
};

struct ProviderEntry {
  std::string name;
  std::function<std::unique_ptr<Provider>(const ProviderSettings&)> make;
  // Part of the default provider set. The reference provider is opt-in: it times the naive
  // fp64 implementation, which is slow on perf-sized graphs and is what every row is judged by.
  bool default_on = true;
};

// Every provider compiled in, in default order.
const std::vector<ProviderEntry>& provider_registry();
// The providers a run uses when --provider is not given: every default_on provider usable on
// this machine (Provider::unusable_reason() empty), or every provider when none is (a build
// without any usable library still runs the reference).
std::vector<std::string> default_provider_names();
// "unknown provider 'x' (built into this binary: a, b)" when `name` is not built; "" otherwise.
std::string unknown_provider_message(const std::string& name);
// nullptr when no provider of that name is built.
std::unique_ptr<Provider> make_provider(const std::string& name, const ProviderSettings& settings = {});

}  // namespace dnnbench
