#include "providers/cuda/kernel_activity.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#if __has_include(<cupti_activity.h>)
#include <cupti_activity.h>
#define DNNBENCH_HAVE_CUPTI_HEADERS 1
#endif

namespace dnnbench::cuda {

#ifdef DNNBENCH_HAVE_CUPTI_HEADERS
namespace {

// CUPTI's buffers: 4 MiB holds ~15,000 kernel records, more than one 1000-execution batch of
// a three-kernel plan; CUPTI asks for more when one fills. 8-byte aligned, as CUPTI requires.
constexpr std::size_t kBufferBytes = 4u << 20;

// The process's one CUPTI: loaded once, callbacks registered once (CUPTI allows one subscriber).
class Cupti {
 public:
  static Cupti& instance() {
    static Cupti cupti;
    return cupti;
  }
  const std::string& error() const { return error_; }
  bool usable() const { return error_.empty(); }

  bool enable() { return enable_(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS; }
  std::vector<KernelRecord> disable_and_collect() {
    disable_(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    flush_all_(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // completes every buffer, through on_complete
    std::lock_guard lock(mutex_);
    auto out = std::move(records_);
    records_.clear();
    std::sort(out.begin(), out.end(),
              [](const KernelRecord& a, const KernelRecord& b) { return a.start_ns < b.start_ns; });
    return out;
  }

 private:
  Cupti() {
    // The toolkit's soname first, then an unversioned name (a CUDA install on the library path).
    for (const char* name : {"libcupti.so.13", "libcupti.so.12", "libcupti.so"}) {
      library_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library_) break;
    }
#ifdef DNNBENCH_CUPTI_LIBRARY
    if (!library_) library_ = dlopen(DNNBENCH_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
#endif
    if (!library_) {
      error_ = "libcupti.so not found";
      return;
    }
    auto register_callbacks =
        symbol<decltype(&cuptiActivityRegisterCallbacks)>("cuptiActivityRegisterCallbacks");
    enable_ = symbol<decltype(&cuptiActivityEnable)>("cuptiActivityEnable");
    disable_ = symbol<decltype(&cuptiActivityDisable)>("cuptiActivityDisable");
    flush_all_ = symbol<decltype(&cuptiActivityFlushAll)>("cuptiActivityFlushAll");
    next_record_ = symbol<decltype(&cuptiActivityGetNextRecord)>("cuptiActivityGetNextRecord");
    if (!register_callbacks || !enable_ || !disable_ || !flush_all_ || !next_record_) {
      error_ = "libcupti lacks the activity API";
      return;
    }
    if (register_callbacks(on_request, on_complete) != CUPTI_SUCCESS)
      error_ = "cuptiActivityRegisterCallbacks failed (another CUPTI client, e.g. a profiler, holds it)";
  }
  template <class F>
  F symbol(const char* name) {
    return reinterpret_cast<F>(dlsym(library_, name));
  }
  static void CUPTIAPI on_request(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
  }
  static void CUPTIAPI on_complete(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                   std::size_t valid) {
    instance().parse(buffer, valid);
    std::free(buffer);
  }
  void parse(std::uint8_t* buffer, std::size_t valid) {
    std::lock_guard lock(mutex_);
    CUpti_Activity* record = nullptr;
    while (next_record_(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
        continue;
      // The fields read here sit in the prefix every kernel-record version shares.
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      records_.push_back(KernelRecord{k->name ? k->name : "?",
                                      {k->gridX, k->gridY, k->gridZ},
                                      {k->blockX, k->blockY, k->blockZ},
                                      k->start,
                                      k->end});
    }
  }

  void* library_ = nullptr;
  std::string error_;
  decltype(&cuptiActivityEnable) enable_ = nullptr;
  decltype(&cuptiActivityDisable) disable_ = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all_ = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record_ = nullptr;
  std::mutex mutex_;
  std::vector<KernelRecord> records_;
};

class CuptiRecorder final : public KernelRecorder {
 public:
  void start() override { enabled_ = Cupti::instance().enable(); }
  std::vector<KernelRecord> stop() override {
    if (!enabled_) return {};
    enabled_ = false;
    return Cupti::instance().disable_and_collect();
  }

 private:
  bool enabled_ = false;
};

}  // namespace

std::unique_ptr<KernelRecorder> make_cupti_recorder(std::string& why_not) {
  auto& cupti = Cupti::instance();
  if (!cupti.usable()) {
    why_not = cupti.error();
    return nullptr;
  }
  return std::make_unique<CuptiRecorder>();
}
#else
std::unique_ptr<KernelRecorder> make_cupti_recorder(std::string& why_not) {
  why_not = "built without CUPTI's headers";
  return nullptr;
}
#endif

}  // namespace dnnbench::cuda
