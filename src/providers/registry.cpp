#include "providers/registry.hpp"

#include "providers/reference/reference_provider.hpp"
#ifdef DNNBENCH_HAVE_ONEDNN
#include "providers/onednn/onednn_provider.hpp"
#endif
#ifdef DNNBENCH_HAVE_CUDNN
#include "providers/cudnn/cudnn_provider.hpp"
#endif
#ifdef DNNBENCH_HAVE_CUBLASLT
#include "providers/cublaslt/cublaslt_provider.hpp"
#endif
#ifdef DNNBENCH_TORCH_MODULE
#include "providers/module.hpp"
#endif
#ifdef DNNBENCH_HAVE_TEST_PROVIDERS
#include "providers/crashtest/crashtest_provider.hpp"
#endif

namespace dnnbench {

const std::vector<ProviderEntry>& provider_registry() {
  static const std::vector<ProviderEntry> entries = {
#ifdef DNNBENCH_HAVE_CUDNN
      {"cudnn", [](const ProviderSettings& s) { return make_cudnn_provider(s.cudnn_heur_mode); }, true},
#endif
#ifdef DNNBENCH_HAVE_CUBLASLT
      {"cublaslt", [](const ProviderSettings&) { return make_cublaslt_provider(); }, true},
#endif
#ifdef DNNBENCH_HAVE_ONEDNN
      {"onednn", [](const ProviderSettings&) { return make_onednn_provider(); }, true},
#endif
      {"reference", [](const ProviderSettings&) { return make_reference_provider(); }, false},
#ifdef DNNBENCH_TORCH_MODULE
      // Opt-in (--provider torch): the peer comparison ("what would PyTorch do"), not a library
      // under test; it would double every default run's rows. A module, loaded when asked for.
      {"torch",
       [](const ProviderSettings&) {
         return load_provider_module("torch", DNNBENCH_TORCH_MODULE, "dnnbench_make_torch_provider");
       },
       false},
#endif
#ifdef DNNBENCH_HAVE_TEST_PROVIDERS
      // Test double for the isolation tests; only in builds with DNNBENCH_TEST_PROVIDERS.
      {"crashtest", [](const ProviderSettings&) { return make_crashtest_provider(); }, false},
#endif
  };
  return entries;
}

namespace {

bool usable(const ProviderEntry& entry) {
  try {
    return entry.make({})->unusable_reason().empty();
  } catch (const std::exception&) {
    return false;  // a provider whose library cannot even start (missing driver, ...)
  }
}

}  // namespace

std::vector<std::string> default_provider_names() {
  std::vector<std::string> names;
  for (const auto& entry : provider_registry())
    if (entry.default_on && usable(entry)) names.push_back(entry.name);
  if (names.empty())
    for (const auto& entry : provider_registry())
      if (usable(entry)) names.push_back(entry.name);
  return names;
}

std::string unknown_provider_message(const std::string& name) {
  std::string built;
  for (const auto& entry : provider_registry()) {
    if (entry.name == name) return "";
    built += (built.empty() ? "" : ", ") + entry.name;
  }
  return "unknown provider '" + name + "' (built into this binary: " + (built.empty() ? "none" : built) + ")";
}

std::unique_ptr<Provider> make_provider(const std::string& name, const ProviderSettings& settings) {
  for (const auto& entry : provider_registry())
    if (entry.name == name) return entry.make(settings);
  return nullptr;
}

}  // namespace dnnbench
