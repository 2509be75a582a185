// The core ruler: a reading for one thread and for a team, the slowest thread's, with the best
// the process has read beside it. What it is for, a VM's host sharing or down-clocking a core,
// cannot be staged in a test: it was shown on the machine (bench/results/core-ruler.json).
#include "sys/core_ruler.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(CoreRuler, ReadsATeamAndKeepsTheBestReading) {
  EXPECT_FALSE(read_core_ruler(0));
  double best = 0;
  for (int i = 0; i < 20; ++i) {
    const auto reading = read_core_ruler(1);
    ASSERT_TRUE(reading);
    EXPECT_GT(reading->us, 0);
    EXPECT_LE(reading->best_us, reading->us);
    // The best only falls.
    if (best > 0) {
      EXPECT_LE(reading->best_us, best);
    }
    best = reading->best_us;
  }
  // A team's reading is its slowest thread's: never below what one thread can do, give or take
  // the one thread's own spread (its undisturbed readings lie within 1% of each other).
  const auto team = read_core_ruler(2);
  ASSERT_TRUE(team);
  EXPECT_LE(team->best_us, team->us);
  EXPECT_GT(team->us, 0.5 * best);
}

}  // namespace
}  // namespace dnnbench
