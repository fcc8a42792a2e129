// Unit tests of the versioned-struct copies: callers older and newer than
// the plugin get what they have room for, with struct_size set to it.
#include "halo/sdk/versioned.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host;
using testing::StatusHolder;
using VersionedTest = testing::LeakCheckedTest;

halo_device_info_t device_info(halo_device_id_t id, const char* name) {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  info.type = HALO_DEVICE_TYPE_CPU;
  info.device_id = id;
  std::snprintf(info.name, sizeof(info.name), "%s", name);
  return info;
}

TEST_F(VersionedTest, CopiesWhatTheCallerHasRoomFor) {
  const halo_device_info_t full = device_info(3, "three");
  halo_device_info_t out = {};
  out.struct_size = sizeof(out);
  StatusHolder status(
      copy_versioned(fake_host(), full, &out, "halo_x", "out_info"));
  EXPECT_EQ(status.get(), nullptr);
  EXPECT_EQ(std::memcmp(&out, &full, sizeof(out)), 0);

  // An older caller: only the members before name.
  halo_device_info_t older = {};
  older.struct_size = offsetof(halo_device_info_t, name);
  std::memset(older.name, 'x', sizeof(older.name));
  StatusHolder partial(
      copy_versioned(fake_host(), full, &older, "halo_x", "out_info"));
  EXPECT_EQ(partial.get(), nullptr);
  EXPECT_EQ(older.struct_size, offsetof(halo_device_info_t, name));
  EXPECT_EQ(older.device_id, 3u);
  EXPECT_EQ(older.name[0], 'x');  // Past its struct_size: untouched.
}

TEST_F(VersionedTest, NewerCallerGetsTheStructTheyShare) {
  struct Newer {
    halo_device_info_t info;
    uint64_t appended;
  } newer = {};
  newer.info.struct_size = sizeof(newer);
  newer.appended = 42;
  StatusHolder status(copy_versioned(fake_host(), device_info(1, "one"),
                                     &newer.info, "halo_x", "out_info"));
  EXPECT_EQ(status.get(), nullptr);
  EXPECT_EQ(newer.info.struct_size, sizeof(halo_device_info_t));
  EXPECT_STREQ(newer.info.name, "one");
  EXPECT_EQ(newer.appended, 42u);
}

TEST_F(VersionedTest, RefusesNullAndTooSmallNamingCallAndArgument) {
  const halo_device_info_t full = device_info(0, "zero");
  StatusHolder null(copy_versioned<halo_device_info_t>(
      fake_host(), full, nullptr, "halo_device_query_info", "out_info"));
  EXPECT_EQ(null.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(null.message().rfind("halo_device_query_info: out_info ", 0), 0u)
      << null.message();
  halo_device_info_t tiny = {};
  tiny.struct_size = 3;
  StatusHolder small(copy_versioned(fake_host(), full, &tiny,
                                    "halo_device_query_info", "out_info"));
  EXPECT_EQ(small.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(small.message().find("struct_size 3"), std::string::npos)
      << small.message();
  EXPECT_EQ(tiny.struct_size, 3u);
}

TEST_F(VersionedTest, DriverInfoIsFilledAndTruncated) {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  std::string long_description(400, 'd');
  StatusHolder status(copy_driver_info(fake_host(), "name", "1.2",
                                       long_description.c_str(), &info));
  EXPECT_EQ(status.get(), nullptr);
  EXPECT_EQ(info.struct_size, sizeof(info));
  EXPECT_STREQ(info.name, "name");
  EXPECT_STREQ(info.version, "1.2");
  EXPECT_EQ(std::strlen(info.description), sizeof(info.description) - 1);

  halo_driver_info_t tiny = {};
  tiny.struct_size = 2;
  StatusHolder refused(copy_driver_info(fake_host(), "n", "v", "d", &tiny));
  EXPECT_EQ(refused.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(refused.message().rfind("halo_driver_query_info: out_info ", 0),
            0u)
      << refused.message();
}

class EnumerateTest : public VersionedTest {
 protected:
  std::vector<halo_device_info_t> devices_ = {
      device_info(0, "a"), device_info(1, "b"), device_info(2, "c")};
  size_t enumerate(size_t capacity, size_t stride, void* out) {
    size_t count = 99;
    enumerate_device_infos(
        devices_.size(),
        [&](size_t i) -> const halo_device_info_t& { return devices_[i]; },
        capacity, stride, static_cast<halo_device_info_t*>(out), &count);
    return count;
  }
};

TEST_F(EnumerateTest, CountOnly) {
  EXPECT_EQ(enumerate(0, sizeof(halo_device_info_t), nullptr), 3u);
  halo_device_info_t untouched = {};
  EXPECT_EQ(enumerate(0, sizeof(halo_device_info_t), &untouched), 3u);
  EXPECT_EQ(untouched.struct_size, 0u);
}

TEST_F(EnumerateTest, FillsUpToCapacity) {
  std::vector<halo_device_info_t> out(2);
  EXPECT_EQ(enumerate(out.size(), sizeof(halo_device_info_t), out.data()), 3u);
  EXPECT_EQ(std::memcmp(&out[0], &devices_[0], sizeof(out[0])), 0);
  EXPECT_EQ(std::memcmp(&out[1], &devices_[1], sizeof(out[1])), 0);
  out.resize(5);
  for (auto& info : out) info = {};
  EXPECT_EQ(enumerate(out.size(), sizeof(halo_device_info_t), out.data()), 3u);
  EXPECT_STREQ(out[2].name, "c");
  EXPECT_EQ(out[3].struct_size, 0u);  // Past the devices: untouched.
}

TEST_F(EnumerateTest, HonoursSmallerAndLargerStrides) {
  // A newer caller: each slot has 16 more bytes, left untouched.
  const size_t wide = sizeof(halo_device_info_t) + 16;
  std::vector<unsigned char> bytes(wide * 3, 0xAB);
  EXPECT_EQ(enumerate(3, wide, bytes.data()), 3u);
  for (size_t i = 0; i < 3; ++i) {
    halo_device_info_t info;
    std::memcpy(&info, bytes.data() + i * wide, sizeof(info));
    EXPECT_EQ(info.struct_size, sizeof(halo_device_info_t));
    EXPECT_EQ(info.device_id, i);
    EXPECT_EQ(bytes[i * wide + sizeof(halo_device_info_t)], 0xAB);
  }
  // An older caller: slots end before name.
  const size_t narrow = offsetof(halo_device_info_t, name);
  bytes.assign(narrow * 3 + 1, 0xCD);
  EXPECT_EQ(enumerate(3, narrow, bytes.data()), 3u);
  for (size_t i = 0; i < 3; ++i) {
    halo_device_info_t info = {};
    std::memcpy(&info, bytes.data() + i * narrow, narrow);
    EXPECT_EQ(info.struct_size, narrow);
    EXPECT_EQ(info.device_id, i);
  }
  EXPECT_EQ(bytes.back(), 0xCD);
}

}  // namespace
}  // namespace halo::sdk
