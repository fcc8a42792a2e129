// A test fixture that fails a test which leaves a status or an allocation
// of the fake host behind.
#ifndef HALO_SDK_TESTING_LEAK_CHECKED_TEST_HPP_
#define HALO_SDK_TESTING_LEAK_CHECKED_TEST_HPP_

#include <gtest/gtest.h>

#include "testing/fake_host.hpp"

namespace halo::sdk::testing {

class LeakCheckedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    statuses_ = live_statuses();
    allocations_ = live_allocations();
  }
  void TearDown() override {
    EXPECT_EQ(live_statuses(), statuses_) << "statuses left unfreed";
    EXPECT_EQ(live_allocations(), allocations_) << "allocations left";
  }

 private:
  long statuses_ = 0;
  long allocations_ = 0;
};

}  // namespace halo::sdk::testing

#endif  // HALO_SDK_TESTING_LEAK_CHECKED_TEST_HPP_
