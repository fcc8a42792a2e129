// Unit tests of the bounded spin: how often it asks, never how long it
// takes.
#include "halo/sdk/spin.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace halo::sdk {
namespace {

using std::chrono::microseconds;

TEST(SpinTest, SpinAsksOnceWhenAlreadyDone) {
  int calls = 0;
  EXPECT_TRUE(spin_until(microseconds(1000), microseconds(1), [&] {
    ++calls;
    return true;
  }));
  EXPECT_EQ(calls, 1);
}

TEST(SpinTest, SpinWithoutTimeAsksOnceAndGivesUp) {
  int calls = 0;
  EXPECT_FALSE(spin_until(microseconds(0), microseconds(1), [&] {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace halo::sdk
