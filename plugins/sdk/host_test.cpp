// Unit tests of the host helpers: statuses, allocation and guard.
#include "halo/sdk/host.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "testing/fake_host.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;

TEST(HostTest, MakeStatusFormats) {
  StatusHolder status(
      fake_host().make_status(HALO_STATUS_NOT_FOUND, "device %d of %s", 3, "x"));
  EXPECT_EQ(status.code(), HALO_STATUS_NOT_FOUND);
  EXPECT_EQ(status.message(), "device 3 of x");
  EXPECT_EQ(fake_host().make_status(HALO_STATUS_OK, "ignored"), nullptr);
}

TEST(HostTest, CloneCopiesCodeAndMessage) {
  StatusHolder original(fake_host().make_status_text(HALO_STATUS_ABORTED, "m"));
  StatusHolder copy(fake_host().clone(original.get()));
  EXPECT_NE(copy.get(), original.get());
  EXPECT_EQ(copy.code(), HALO_STATUS_ABORTED);
  EXPECT_EQ(copy.message(), "m");
  EXPECT_EQ(fake_host().clone(nullptr), nullptr);
}

TEST(HostTest, GuardConvertsExceptions) {
  StatusHolder ok(guard(fake_host(), [] {}));
  EXPECT_EQ(ok.get(), nullptr);
  StatusHolder memory(
      guard(fake_host(), []() -> halo_status_t { throw std::bad_alloc(); }));
  EXPECT_EQ(memory.code(), HALO_STATUS_RESOURCE_EXHAUSTED);
  StatusHolder runtime(guard(fake_host(), []() -> halo_status_t {
    throw std::runtime_error("kaput");
  }));
  EXPECT_EQ(runtime.code(), HALO_STATUS_INTERNAL);
  EXPECT_NE(runtime.message().find("kaput"), std::string::npos);
  StatusHolder other(guard(fake_host(), []() -> halo_status_t { throw 7; }));
  EXPECT_EQ(other.code(), HALO_STATUS_INTERNAL);
  StatusHolder through(HALO_SDK_TRY(fake_host(), {
    return fake_host().make_status_text(HALO_STATUS_CANCELLED, "c");
  }));
  EXPECT_EQ(through.code(), HALO_STATUS_CANCELLED);
}

TEST(HostTest, MakeAndDestroyUseTheHostAllocator) {
  long before = testing::live_allocations();
  struct Thing {
    explicit Thing(int v) : value(v) {}
    int value;
  };
  Thing* thing = fake_host().make<Thing>(5);
  EXPECT_EQ(thing->value, 5);
  EXPECT_EQ(testing::live_allocations(), before + 1);
  fake_host().destroy(thing);
  EXPECT_EQ(testing::live_allocations(), before);
}

TEST(HostTest, StlAllocatorDrawsFromHost) {
  long before = testing::total_allocations();
  {
    std::vector<int, HostAllocator<int>> numbers{HostAllocator<int>(fake_host())};
    for (int i = 0; i < 100; ++i) numbers.push_back(i);
    EXPECT_EQ(numbers[99], 99);
  }
  EXPECT_GT(testing::total_allocations(), before);
}

}  // namespace
}  // namespace halo::sdk
