#include "providers/registry.hpp"

#ifdef DNNBENCH_HAVE_ONEDNN
#include "providers/onednn/onednn_provider.hpp"
#endif

namespace dnnbench {

const std::vector<ProviderEntry>& provider_registry() {
  static const std::vector<ProviderEntry> entries = {
  // The tool's own "reference" provider goes here, first, when it is added.
#ifdef DNNBENCH_HAVE_ONEDNN
      {"onednn", make_onednn_provider},
#endif
  };
  return entries;
}

std::unique_ptr<Provider> make_provider(const std::string& name) {
  for (const auto& entry : provider_registry())
    if (entry.name == name) return entry.make();
  return nullptr;
}

}  // namespace dnnbench
