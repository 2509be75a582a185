// Host-timed samples: the only clock a host provider has.
#include "measure/host_timer.hpp"
#include "session/sampler.hpp"

#include <limits>

namespace dnnbench {
namespace {

class HostSampler final : public Sampler {
 public:
  explicit HostSampler(PlanInstance& instance) : instance_(instance) {}
  Sample take(std::int64_t executions) override {
    HostTimer timer;
    for (std::int64_t i = 0; i < executions; ++i) instance_.execute();
    instance_.stream().synchronize();
    return {timer.elapsed_ms() / static_cast<double>(executions), std::numeric_limits<double>::quiet_NaN()};
  }
  std::string method(std::int64_t) const override { return "host-per-execution"; }
  bool device_timed() const override { return false; }

 private:
  PlanInstance& instance_;
};

}  // namespace

std::unique_ptr<Sampler> make_host_sampler(PlanInstance& instance) {
  return std::make_unique<HostSampler>(instance);
}

}  // namespace dnnbench
