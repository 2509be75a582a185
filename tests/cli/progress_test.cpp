#include "cli/progress.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(Progress, ModeFollowsTheTerminalUnlessForced) {
  EXPECT_EQ(resolve_progress_mode("auto", false, true), ProgressMode::bar);
  EXPECT_EQ(resolve_progress_mode("auto", false, false), ProgressMode::lines);
  EXPECT_EQ(resolve_progress_mode("auto", true, true), ProgressMode::none);
  EXPECT_EQ(resolve_progress_mode("bar", false, false), ProgressMode::bar);
  EXPECT_EQ(resolve_progress_mode("lines", false, true), ProgressMode::lines);
  EXPECT_EQ(resolve_progress_mode("none", false, true), ProgressMode::none);
}

TEST(Progress, DurationsAndBarText) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(65.4), "1:05");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(progress_bar_text(1, 10, 0, 0, 0.2, "a.json"), "[1/10] 0 rows, 0:00 elapsed, ETA --  a.json");
  // 4 graphs took 20 s: 6 left at 5 s each.
  EXPECT_EQ(progress_bar_text(5, 10, 4, 37, 20, "b.json"), "[5/10] 37 rows, 0:20 elapsed, ETA 0:30  b.json");
}

}  // namespace
}  // namespace dnnbench
