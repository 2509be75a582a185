#include "run/isolation.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(Isolation, ModeNamesRoundTrip) {
  for (auto mode : {IsolationMode::none, IsolationMode::graph, IsolationMode::row})
    EXPECT_EQ(isolation_mode_from_name(isolation_mode_name(mode)), mode);
  EXPECT_FALSE(isolation_mode_from_name("process"));
}

TEST(Isolation, HostProvidersRunInProcessByDefault) {
  EXPECT_EQ(default_isolation({"reference"}), IsolationMode::none);
#ifdef DNNBENCH_HAVE_ONEDNN
  EXPECT_EQ(default_isolation({"onednn", "reference"}), IsolationMode::none);
#endif
}

}  // namespace
}  // namespace dnnbench
