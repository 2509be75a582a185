#include "run/keep_warm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace dnnbench {
namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace

KeepWarm::KeepWarm(std::unique_ptr<DeviceHeater> heater, ClockSource* clocks)
    : heater_(std::move(heater)), clocks_(clocks) {}

KeepWarm::~KeepWarm() {
  if (heater_) heater_->stop();
}

void KeepWarm::heat() {
  if (!heater_ || started_at_ms_) return;
  heater_->start(kKeepWarmMaxMs);
  started_at_ms_ = now_ms();
}

std::optional<TimingInfo::KeptWarm> KeepWarm::stop() {
  if (!heater_ || !started_at_ms_) return std::nullopt;
  // The sensors read before the heater stops: what the device was doing under its load.
  const auto reading = clocks_ ? std::optional<ClockReading>(clocks_->read()) : std::nullopt;
  heater_->stop();
  TimingInfo::KeptWarm kept;
  kept.ms = std::min(now_ms() - *started_at_ms_, kKeepWarmMaxMs);
  if (reading) {
    kept.power_w = finite(reading->power_w);
    kept.sm_mhz = finite(reading->sm_mhz);
    kept.capped = reading->capped == 1.0;
  }
  started_at_ms_.reset();
  return kept;
}

}  // namespace dnnbench
