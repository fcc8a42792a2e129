// Unit tests of the bounded spin and the growing-sleep poll: how often they
// ask, never how long they take.
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

TEST(SpinTest, BackoffAsksUntilDoneAndNoMore) {
  int calls = 0;
  poll_with_backoff(microseconds(1), microseconds(4), [&] { return ++calls == 20; });
  EXPECT_EQ(calls, 20);
}

TEST(SpinTest, BackoffAsksOnceWhenAlreadyDone) {
  int calls = 0;
  poll_with_backoff(microseconds(1), microseconds(4), [&] {
    ++calls;
    return true;
  });
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace halo::sdk
