#include "measure/clock_sampler.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace dnnbench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The few NVML entry points used, declared here with NVML's C ABI (nvml.h is not needed to
// build): the handle is opaque, every call returns 0 on success.
using NvmlDevice = void*;
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlByIndex = int (*)(unsigned, NvmlDevice*);
using NvmlByPciBusId = int (*)(const char*, NvmlDevice*);
using NvmlClockInfo = int (*)(NvmlDevice, int, unsigned*);
using NvmlTemperature = int (*)(NvmlDevice, int, unsigned*);
using NvmlPowerUsage = int (*)(NvmlDevice, unsigned*);
using NvmlEventReasons = int (*)(NvmlDevice, unsigned long long*);
using NvmlPowerLimit = int (*)(NvmlDevice, unsigned*);
// nvmlFieldValue_t's layout (nvml.h): the value is an 8-byte union, read here as what the power
// fields hold (an unsigned int of mW, or an unsigned long long on some drivers).
struct NvmlFieldValue {
  unsigned field_id, scope_id;
  long long timestamp, latency_us;
  int value_type, nvml_return;
  unsigned long long value;
};
using NvmlFieldValues = int (*)(NvmlDevice, int, NvmlFieldValue*);
constexpr unsigned kNvmlFieldPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT, mW
constexpr int kNvmlValueUnsignedInt = 1, kNvmlValueUnsignedLongLong = 3;
// At or above the enforced limit the driver cuts the clock at its next tick. Not lower: a row
// whose instant power wandered around 95% of it ran at full boost.
constexpr double kAtPowerLimit = 1.0;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2, kNvmlTemperatureGpu = 0;
// nvmlClocksEventReason* bits that mean "the clocks are held down by power or heat": SW power
// cap (0x4), HW slowdown (0x8), SW thermal (0x20), HW thermal (0x40), HW power brake (0x80).
// Idle (0x1) and application-clock settings (0x2) are not a slowdown of a running kernel.
constexpr unsigned long long kNvmlCappedReasons = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

class NvmlClockSource final : public ClockSource {
 public:
  ~NvmlClockSource() override {
    if (shutdown_) shutdown_();
    if (library_) dlclose(library_);
  }
  // False when the library, a symbol or the device is missing.
  bool open(const std::string& pci_bus_id) {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) return false;
    auto init = symbol<NvmlInit>("nvmlInit_v2");
    shutdown_ = symbol<NvmlShutdown>("nvmlShutdown");
    auto by_index = symbol<NvmlByIndex>("nvmlDeviceGetHandleByIndex_v2");
    auto by_bus = symbol<NvmlByPciBusId>("nvmlDeviceGetHandleByPciBusId_v2");
    clock_ = symbol<NvmlClockInfo>("nvmlDeviceGetClockInfo");
    temperature_ = symbol<NvmlTemperature>("nvmlDeviceGetTemperature");
    power_ = symbol<NvmlPowerUsage>("nvmlDeviceGetPowerUsage");
    // The newer name first; drivers before R535 have only the "throttle" spelling.
    reasons_ = symbol<NvmlEventReasons>("nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons_) reasons_ = symbol<NvmlEventReasons>("nvmlDeviceGetCurrentClocksThrottleReasons");
    fields_ = symbol<NvmlFieldValues>("nvmlDeviceGetFieldValues");
    limit_ = symbol<NvmlPowerLimit>("nvmlDeviceGetEnforcedPowerLimit");
    if (!init || !shutdown_ || !by_index || !clock_ || init() != 0) {
      shutdown_ = nullptr;
      return false;
    }
    if (!pci_bus_id.empty() && by_bus && by_bus(pci_bus_id.c_str(), &device_) == 0) {
      name_ = pci_bus_id;
    } else {
      name_ = "index 0";
      if (by_index(0, &device_) != 0) return false;
    }
    unsigned limit_mw = 0;
    if (limit_ && limit_(device_, &limit_mw) == 0 && limit_mw > 0) limit_w_ = limit_mw / 1000.0;
    return true;
  }
  ClockReading read() override {
    ClockReading r{kNaN, kNaN, kNaN, kNaN};
    unsigned value = 0;
    if (clock_(device_, kNvmlClockSm, &value) == 0) r.sm_mhz = value;
    if (clock_(device_, kNvmlClockMem, &value) == 0) r.mem_mhz = value;
    if (temperature_ && temperature_(device_, kNvmlTemperatureGpu, &value) == 0) r.temperature_c = value;
    if (power_ && power_(device_, &value) == 0) r.power_w = value / 1000.0;  // NVML reports mW
    unsigned long long reasons = 0;
    if (reasons_ && reasons_(device_, &reasons) == 0) r.capped = (reasons & kNvmlCappedReasons) ? 1.0 : 0.0;
    r.power_limit_w = limit_w_;
    const double instant_w = instant_power_w();
    if (!std::isnan(instant_w) && !std::isnan(limit_w_))
      r.at_power_limit = instant_w >= kAtPowerLimit * limit_w_ ? 1.0 : 0.0;
    return r;
  }
  // NaN where the driver has no instant power field (before R535, or not on this board).
  double instant_power_w() {
    if (!fields_) return kNaN;
    NvmlFieldValue v{};
    v.field_id = kNvmlFieldPowerInstant;
    if (fields_(device_, 1, &v) != 0 || v.nvml_return != 0) return kNaN;
    if (v.value_type == kNvmlValueUnsignedInt) return static_cast<double>(v.value & 0xffffffffULL) / 1000.0;
    if (v.value_type == kNvmlValueUnsignedLongLong) return static_cast<double>(v.value) / 1000.0;
    return kNaN;
  }
  std::string description() const override { return fmt::format("NVML, device {}", name_); }

 private:
  template <typename F>
  F symbol(const char* name) {
    return reinterpret_cast<F>(dlsym(library_, name));
  }
  void* library_ = nullptr;
  NvmlShutdown shutdown_ = nullptr;
  NvmlClockInfo clock_ = nullptr;
  NvmlTemperature temperature_ = nullptr;
  NvmlPowerUsage power_ = nullptr;
  NvmlEventReasons reasons_ = nullptr;
  NvmlFieldValues fields_ = nullptr;
  NvmlPowerLimit limit_ = nullptr;
  double limit_w_ = kNaN;
  NvmlDevice device_ = nullptr;
  std::string name_;
};

std::optional<MinMaxMean> range_of(const std::vector<ClockReading>& readings, double ClockReading::*field) {
  MinMaxMean r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 0};
  std::int64_t n = 0;
  for (const auto& reading : readings) {
    const double v = reading.*field;
    if (std::isnan(v)) continue;
    r.min = std::min(r.min, v);
    r.max = std::max(r.max, v);
    r.mean += v;
    ++n;
  }
  if (n == 0) return std::nullopt;
  r.mean /= static_cast<double>(n);
  return r;
}

}  // namespace

ClockSummary summarize_clocks(const std::vector<ClockReading>& readings, double sm_tolerance) {
  ClockSummary s;
  s.readings = static_cast<std::int64_t>(readings.size());
  s.sm_mhz = range_of(readings, &ClockReading::sm_mhz);
  s.mem_mhz = range_of(readings, &ClockReading::mem_mhz);
  s.temperature_c = range_of(readings, &ClockReading::temperature_c);
  s.power_w = range_of(readings, &ClockReading::power_w);
  if (s.sm_mhz && s.sm_mhz->max > 0)
    s.clock_unstable = (s.sm_mhz->max - s.sm_mhz->min) / s.sm_mhz->max > sm_tolerance;
  if (const auto capped = range_of(readings, &ClockReading::capped)) s.capped_fraction = capped->mean;
  return s;
}

std::unique_ptr<ClockSource> open_nvml_clock_source(const std::string& pci_bus_id) {
  auto source = std::make_unique<NvmlClockSource>();
  if (!source->open(pci_bus_id)) return nullptr;
  return source;
}

ClockSampler::ClockSampler(ClockSource& source, double period_ms) : source_(source), period_ms_(period_ms) {}

ClockSampler::~ClockSampler() {
  if (running_) stop();
}

void ClockSampler::start() {
  if (running_) return;
  {
    std::lock_guard lock(mutex_);
    readings_.clear();
    readings_.push_back(source_.read());
  }
  running_ = true;
  thread_ = std::thread([this] { loop(); });
}

std::vector<ClockReading> ClockSampler::stop() {
  if (running_) {
    {
      std::lock_guard lock(mutex_);
      running_ = false;
    }
    wake_.notify_all();
    thread_.join();
  }
  std::lock_guard lock(mutex_);
  readings_.push_back(source_.read());
  return readings_;
}

ClockReading ClockSampler::latest() const {
  std::lock_guard lock(mutex_);
  return readings_.empty() ? ClockReading{kNaN, kNaN, kNaN, kNaN} : readings_.back();
}

bool ClockSampler::latest_capped() const {
  std::lock_guard lock(mutex_);
  return !readings_.empty() && readings_.back().capped == 1.0;
}

void ClockSampler::loop() {
  // A sleeping loop made every stop() wait out the rest of its period: ~8 ms a row, twice
  // (warm-up and measurement), 3.6 s of the ResNet-50 suite on the H200.
  const auto period = std::chrono::duration<double, std::milli>(period_ms_);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, period, [this] { return !running_; })) return;
    }
    const auto reading = source_.read();
    std::lock_guard lock(mutex_);
    readings_.push_back(reading);
  }
}

}  // namespace dnnbench
