#include "providers/cuda/kernel_activity.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "providers/activity_names.hpp"

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

  // Kernels, and the memsets and copies a plan may enqueue beside them (a library zeroing a
  // split-K buffer, a framework copying its result into the caller's tensor): GPU time the
  // execution spends that a kernel-only list would hide.
  bool enable() {
    if (!attached_) {
      if (register_callbacks_(on_request, on_complete) != CUPTI_SUCCESS) return false;
      attached_ = true;
    }
    if (enable_(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) return false;
    enable_(CUPTI_ACTIVITY_KIND_MEMSET);
    enable_(CUPTI_ACTIVITY_KIND_MEMCPY);
    return true;
  }
  std::vector<KernelRecord> disable_and_collect() {
    disable_(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    disable_(CUPTI_ACTIVITY_KIND_MEMSET);
    disable_(CUPTI_ACTIVITY_KIND_MEMCPY);
    flush_all_(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // completes every buffer, through on_complete
    // Detached until the next recording: on the H200, launches measured after CUPTI had been
    // enabled once in the process lost the overlap of dependent kernels (a split-K GEMM and its
    // reduce kernel read ~2 us slower per execution in the CUDA-graph replay than the first row
    // of the same process, with the same kernel durations).
    if (finalize_) {
      finalize_();
      attached_ = false;
    }
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
    register_callbacks_ = symbol<decltype(&cuptiActivityRegisterCallbacks)>("cuptiActivityRegisterCallbacks");
    finalize_ = symbol<decltype(&cuptiFinalize)>("cuptiFinalize");
    enable_ = symbol<decltype(&cuptiActivityEnable)>("cuptiActivityEnable");
    disable_ = symbol<decltype(&cuptiActivityDisable)>("cuptiActivityDisable");
    flush_all_ = symbol<decltype(&cuptiActivityFlushAll)>("cuptiActivityFlushAll");
    next_record_ = symbol<decltype(&cuptiActivityGetNextRecord)>("cuptiActivityGetNextRecord");
    if (!register_callbacks_ || !enable_ || !disable_ || !flush_all_ || !next_record_) {
      error_ = "libcupti lacks the activity API";
      return;
    }
    if (register_callbacks_(on_request, on_complete) != CUPTI_SUCCESS)
      error_ = "cuptiActivityRegisterCallbacks failed (another CUPTI client, e.g. a profiler, holds it)";
    attached_ = error_.empty();
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
      // The fields read here sit in the prefix every version of each record kind shares.
      if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        records_.push_back(KernelRecord{memset_activity_name(m->bytes), {}, {}, m->start, m->end});
        continue;
      }
      if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        records_.push_back(KernelRecord{memcpy_activity_name(m->bytes), {}, {}, m->start, m->end});
        continue;
      }
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
        continue;
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
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks_ = nullptr;
  decltype(&cuptiFinalize) finalize_ = nullptr;  // absent from old CUPTIs: then CUPTI stays attached
  bool attached_ = false;
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
