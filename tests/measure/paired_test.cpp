#include "measure/paired.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace dnnbench {
namespace {

std::vector<double> lognormal_samples(std::mt19937_64& rng, int n, double median, double sigma) {
  std::lognormal_distribution<double> d(std::log(median), sigma);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(Paired, IdenticalDistributionsAreSignificantAtMostAtTheStatedRate) {
  std::mt19937_64 rng(11);
  int significant = 0;
  const int trials = 100;
  for (int t = 0; t < trials; ++t) {
    const auto a = lognormal_samples(rng, 60, 1.0, 0.05);
    const auto b = lognormal_samples(rng, 60, 1.0, 0.05);
    significant += compare_paired(a, b, 500, static_cast<std::uint64_t>(t)).significant ? 1 : 0;
  }
  // Nominal 5%; allow sampling error of the estimate (sd ~2.2% at 100 trials).
  EXPECT_LE(significant, trials * 10 / 100) << significant << " of " << trials;
}

TEST(Paired, DetectsATwoPercentShiftWithEnoughRounds) {
  std::mt19937_64 rng(12);
  int detected = 0;
  for (int t = 0; t < 20; ++t) {
    const auto a = lognormal_samples(rng, 400, 1.02, 0.02);
    const auto b = lognormal_samples(rng, 400, 1.00, 0.02);
    const auto r = compare_paired(a, b, 500, static_cast<std::uint64_t>(t));
    detected += r.significant && r.ratio > 1 ? 1 : 0;
    EXPECT_NEAR(r.ratio, 1.02, 0.01);
  }
  EXPECT_GE(detected, 19);
}

TEST(Paired, EffectsBelowTheMinimumAreNeverSignificant) {
  std::vector<double> a(100, 1.005), b(100, 1.0);  // a tight, real 0.5% difference
  EXPECT_TRUE(compare_paired(a, b, 200, 1, 0.0).significant);
  EXPECT_FALSE(compare_paired(a, b, 200, 1, 0.01).significant);
}

TEST(Paired, SharedDriftCancelsInThePairing) {
  // Both sides slow down together over the run (a GPU reaching its power cap): B is 2% faster
  // in every round, and the paired comparison sees exactly that despite the 30% drift.
  std::vector<double> a, b;
  for (int i = 0; i < 100; ++i) {
    const double drift = 1.0 + 0.3 * i / 100.0;
    a.push_back(1.02 * drift);
    b.push_back(1.00 * drift);
  }
  const auto r = compare_paired(a, b, 500, 3);
  EXPECT_TRUE(r.significant);
  EXPECT_NEAR(r.ratio, 1.02, 0.01);
}

TEST(Paired, RunPairedInterleavesAbbaAndStopsWhenConverged) {
  std::string order;
  int calls = 0;
  PairedLimits limits;
  limits.min_rounds = 20;
  const auto r = run_paired(
      [&] {
        order += 'A';
        ++calls;
        return 2.0;
      },
      [&] {
        order += 'B';
        ++calls;
        return 1.0;
      },
      limits);
  EXPECT_EQ(order.substr(0, 8), "ABBAABBA");
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.rounds, 20);
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_TRUE(r.significant);
}

TEST(Paired, RunPairedStopsAtTheRoundCap) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  PairedLimits limits;
  limits.max_rounds = 50;
  limits.target_ci_rel = 1e-9;
  const auto r = run_paired([&] { return u(rng); }, [&] { return u(rng); }, limits);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.rounds, 50);
}

TEST(Paired, ControlArmCyclesThroughAllSixOrders) {
  std::string order;
  PairedLimits limits;
  limits.min_rounds = 12;
  const auto r = run_paired(
      [&] {
        order += 'A';
        return 1.0;
      },
      [&] {
        order += 'B';
        return 1.0;
      },
      limits,
      [&] {
        order += 'C';
        return 1.0;
      });
  EXPECT_EQ(order.substr(0, 18), "ABCCBABCAACBCABBAC");
  EXPECT_TRUE(r.has_control);
  EXPECT_EQ(r.rounds, 12);
  EXPECT_FALSE(r.significant);
}

// Rounds are judged only at whole cycles of the six orders: a minimum between cycles waits for
// the cycle to finish, so every arm has sat in every position equally often.
TEST(Paired, ControlArmStopsOnlyAtAWholeCycleOfOrders) {
  PairedLimits limits;
  limits.min_rounds = 14;
  const auto one = [] { return 1.0; };
  const auto r = run_paired(one, one, limits, one);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.rounds, 18);
}

// A/A through the control path: B and the control are both the same plan as A. Over many
// trials with noisy, autocorrelated samples (load bursts hit a few consecutive rounds), the
// control keeps false positives far below the bare CI's 5%.
TEST(Paired, ControlArmKeepsAaFalsePositivesRare) {
  std::mt19937_64 rng(21);
  std::lognormal_distribution<double> noise(0.0, 0.05);
  std::bernoulli_distribution burst_starts(0.03);
  int significant = 0, bare = 0;
  const int trials = 100;
  for (int t = 0; t < trials; ++t) {
    int burst = 0;
    auto sample = [&] {
      if (burst == 0 && burst_starts(rng)) burst = 9;
      const double slow = burst > 0 ? 1.5 : 1.0;
      if (burst > 0) --burst;
      return slow * noise(rng);
    };
    PairedLimits limits;
    limits.max_rounds = 60;
    limits.target_ci_rel = 1e-9;
    const auto r = run_paired(sample, sample, limits, sample);
    significant += r.significant ? 1 : 0;
    bare += (r.ci_lo > 1.0 || r.ci_hi < 1.0) && std::abs(r.ratio - 1) >= limits.min_effect ? 1 : 0;
  }
  EXPECT_LE(significant, 1) << significant << " of " << trials;
  // The bare CI on the same rounds: what the control protects against (it must be seen here, or
  // this test exercises nothing).
  EXPECT_GE(bare, 3) << bare << " of " << trials;
}

TEST(Paired, ControlArmStillDetectsARealGap) {
  std::mt19937_64 rng(22);
  std::lognormal_distribution<double> noise(0.0, 0.02);
  PairedLimits limits;
  limits.max_rounds = 240;
  limits.target_ci_rel = 1e-9;
  const auto r = run_paired([&] { return 1.06 * noise(rng); }, [&] { return noise(rng); }, limits,
                            [&] { return 1.06 * noise(rng); });
  EXPECT_TRUE(r.significant);
  EXPECT_NEAR(r.ratio, 1.06, 0.01);
  EXPECT_NEAR(r.control_ratio, 1.0, 0.01);
  EXPECT_GE(r.noise_floor, 0.01);
  EXPECT_LT(r.noise_floor, 0.03);
}

TEST(Paired, AnEffectInsideTheControlsBandIsNotSignificant) {
  // The control itself is 4% away (buffer placement, say): a 3% "gain" of B is inside that.
  PairedResult r;
  r.ratio = 1.03;
  r.ci_lo = 1.025;
  r.ci_hi = 1.035;
  PairedResult control;
  control.ratio = 1.04;
  control.ci_lo = 1.035;
  control.ci_hi = 1.045;
  judge_against_control(r, control, 0.01);
  EXPECT_FALSE(r.significant);
  EXPECT_NEAR(r.noise_floor, 0.045, 1e-9);
  r.ci_lo = 1.05;
  r.ci_hi = 1.07;
  judge_against_control(r, control, 0.01);
  EXPECT_TRUE(r.significant);
}

// Microsecond GPU kernels: a second instance of one plan runs a steady 0.09 us (6%) slower, and
// the control instance happens to sit close to A. The absolute floor keeps that from being a
// "speedup"; a 0.5 us gap on the same kernel is still one, and the floor does not widen the band
// of a long kernel.
TEST(Paired, AnAbsoluteFloorCoversInstanceDifferencesOfMicrosecondKernels) {
  std::mt19937_64 rng(23);
  std::lognormal_distribution<double> noise(0.0, 0.002);
  PairedLimits limits;
  limits.max_rounds = 120;
  limits.target_ci_rel = 1e-9;
  limits.min_effect_ms = 0.0002;
  const auto instance = [&](double ms) { return [&, ms] { return ms * noise(rng); }; };
  const auto aa = run_paired(instance(0.00146), instance(0.00155), limits, instance(0.00147));
  EXPECT_FALSE(aa.significant) << aa.ratio;
  EXPECT_NEAR(aa.noise_floor, 0.0002 / 0.00146, 0.005);
  const auto real = run_paired(instance(0.00200), instance(0.00150), limits, instance(0.00201));
  EXPECT_TRUE(real.significant) << real.ratio;
  const auto slow = run_paired(instance(1.0), instance(0.97), limits, instance(1.0));
  EXPECT_TRUE(slow.significant);
  EXPECT_NEAR(slow.noise_floor, 0.01, 0.003);  // min_effect and the control, not 0.2 us
}

TEST(Paired, AaFalsePositiveRateOverManyInterleavedTrialsIsAtMostTheStatedRate) {
  // 400 synthetic A/A comparisons through run_paired, with shared drift and heavy-ish noise, and
  // no minimum effect: the 95% CI must exclude 1 in about 5% of them (binomial sd ~1.1%).
  std::mt19937_64 rng(31);
  std::lognormal_distribution<double> noise(0.0, 0.03);
  PairedLimits limits;
  limits.min_effect = 0;
  limits.max_rounds = 40;
  limits.target_ci_rel = 0;  // never stop early: every trial has the same size
  int significant = 0;
  const int trials = 400;
  for (int t = 0; t < trials; ++t) {
    int round = 0;
    auto drift = [&] { return 1.0 + 0.1 * std::sin(round++ / 5.0); };
    const auto r =
        run_paired([&] { return drift() * noise(rng); }, [&] { return drift() * noise(rng); }, limits);
    significant += r.significant ? 1 : 0;
  }
  EXPECT_LE(significant, trials * 8 / 100) << significant << " of " << trials;
  EXPECT_GE(significant, 1) << "a CI that never excludes 1 is too wide";
}

TEST(Paired, RunPairedDetectsATwoPercentShiftUnderNoise) {
  std::mt19937_64 rng(32);
  std::lognormal_distribution<double> noise(0.0, 0.02);
  PairedLimits limits;  // defaults: the oracle's
  limits.max_rounds = 400;
  limits.max_time_ms = 1e9;
  int detected = 0;
  for (int t = 0; t < 10; ++t) {
    const auto r = run_paired([&] { return 1.02 * noise(rng); }, [&] { return noise(rng); }, limits);
    detected += r.significant && r.ratio > 1.0 ? 1 : 0;
    EXPECT_NEAR(r.ratio, 1.02, 0.01);
  }
  EXPECT_GE(detected, 9);
}

}  // namespace
}  // namespace dnnbench
