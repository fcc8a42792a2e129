// The progress line's text (cts/runner/progress.hpp).
#include <string>

#include <gtest/gtest.h>

#include "progress.hpp"

namespace halo::cts {
namespace {

TEST(ProgressTest, NothingToEstimateFromBeforeTheFirstCase) {
  EXPECT_EQ(progress_text(0, 150, 0, 0, 3.0), "[0/150] 0 failed, estimating the time left");
}

TEST(ProgressTest, EstimatesFromTheAverageCaseSoFar) {
  // 10 cases in 20 s: 2 s each, 140 left.
  EXPECT_EQ(progress_text(10, 150, 1, 0, 20.0), "[10/150] 1 failed, ~4 min 40 s left");
  EXPECT_EQ(progress_text(1, 2, 0, 0, 0.2), "[1/2] 0 failed, ~1 s left");
  EXPECT_EQ(progress_text(1, 100, 0, 0, 3600.0), "[1/100] 0 failed, ~99 h 00 min left");
}

TEST(ProgressTest, SaysHowManyCasesWaitForARerun) {
  EXPECT_EQ(progress_text(3, 4, 0, 2, 3.0), "[3/4] 0 failed, 2 to rerun, ~1 s left");
}

TEST(ProgressTest, EndsDone) {
  EXPECT_EQ(progress_text(4, 4, 2, 0, 9.0), "[4/4] 2 failed, done");
}

}  // namespace
}  // namespace halo::cts
