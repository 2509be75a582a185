// cuBLASLt is loaded at run time by the provider, not linked (lt_library.hpp: linking it cost
// every process ~0.6 s and ~210 MB at start). No GPU needed: loading and cublasLtGetVersion work
// without one.
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <string>
#include <vector>

#include "providers/cublaslt/lt_library.hpp"
#include "providers/registry.hpp"

namespace dnnbench::cublaslt {
namespace {

// The DT_NEEDED entries of this test executable (the first object dl_iterate_phdr reports).
std::vector<std::string> needed_libraries_of_this_executable() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) -> int {
        auto& names = *static_cast<std::vector<std::string>*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
          const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
          const char* strtab = nullptr;
          for (const auto* d = dyn; d->d_tag != DT_NULL; ++d)
            if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
          for (const auto* d = dyn; strtab && d->d_tag != DT_NULL; ++d)
            if (d->d_tag == DT_NEEDED) names.emplace_back(strtab + d->d_un.d_val);
        }
        return 1;  // the executable only
      },
      &out);
  return out;
}

TEST(CublasLtLibrary, IsNotLinkedIntoTheExecutable) {
  const auto needed = needed_libraries_of_this_executable();
  ASSERT_FALSE(needed.empty());  // the walk found the executable's dynamic section
  for (const auto& name : needed) EXPECT_EQ(name.rfind("libcublasLt", 0), std::string::npos) << name;
}

TEST(CublasLtLibrary, LoadsAtRunTimeWithEveryEntryPointAndTheHeadersMajorVersion) {
  ASSERT_EQ(lt_library_error(), "");
  const auto& library = lt();
#define DNNBENCH_EXPECT_RESOLVED(name) EXPECT_NE(library.name, nullptr) << #name;
  DNNBENCH_LT_ENTRIES(DNNBENCH_EXPECT_RESOLVED)
#undef DNNBENCH_EXPECT_RESOLVED
  EXPECT_EQ(static_cast<int>(library.cublasLtGetVersion() / 10000), CUBLAS_VER_MAJOR);
  EXPECT_STREQ(library.cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
}

TEST(CublasLtLibrary, TheProviderNamesTheLoadedVersion) {
  const auto provider = make_provider("cublaslt", {});
  ASSERT_NE(provider, nullptr);
  const std::string expected = "cuBLASLt " + std::to_string(CUBLAS_VER_MAJOR) + ".";
  EXPECT_EQ(provider->version().rfind(expected, 0), 0u) << provider->version();
}

}  // namespace
}  // namespace dnnbench::cublaslt
