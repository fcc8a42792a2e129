// --shard I/N (cts/runner/shard.hpp): what is accepted, and that the
// shards of a run hold each of its cases exactly once.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shard.hpp"

namespace halo::cts {
namespace {

TEST(ShardTest, ReadsIndexAndCount) {
  Shard shard;
  std::string error;
  ASSERT_TRUE(parse_shard("2/5", &shard, &error)) << error;
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 5u);
  EXPECT_EQ(shard.text(), "2/5");
  ASSERT_TRUE(parse_shard("0/1", &shard, &error)) << error;
}

TEST(ShardTest, RefusesWhatIsNotAShard) {
  for (const char* text : {"", "1", "/", "1/", "/2", "a/2", "1/b", "-1/2", "1/-2",
                           " 1/2", "1/2 ", "1/2/3", "1.0/2", "+1/2",
                           "99999999999999999999/2"}) {
    Shard shard;
    std::string error;
    EXPECT_FALSE(parse_shard(text, &shard, &error)) << text;
    EXPECT_NE(error.find("I/N"), std::string::npos) << text << ": " << error;
  }
}

TEST(ShardTest, RefusesAnIndexOutOfRange) {
  Shard shard;
  std::string error;
  EXPECT_FALSE(parse_shard("3/3", &shard, &error));
  EXPECT_NE(error.find("2/3"), std::string::npos) << "names the last shard: " << error;
  EXPECT_FALSE(parse_shard("0/0", &shard, &error));
  EXPECT_NE(error.find("at least 1"), std::string::npos) << error;
}

TEST(ShardTest, ShardsHoldEveryItemExactlyOnce) {
  for (size_t items = 0; items < 12; ++items) {
    std::vector<size_t> all(items);
    for (size_t i = 0; i < items; ++i) all[i] = i;
    for (size_t count = 1; count < 8; ++count) {
      std::vector<size_t> seen;
      for (size_t index = 0; index < count; ++index) {
        const std::vector<size_t> part = take_shard(all, Shard{index, count});
        EXPECT_TRUE(std::is_sorted(part.begin(), part.end())) << "keeps the order";
        EXPECT_LE(part.size(), items / count + 1) << "shards differ by one at most";
        seen.insert(seen.end(), part.begin(), part.end());
      }
      std::sort(seen.begin(), seen.end());
      EXPECT_EQ(seen, all) << items << " items in " << count << " shards";
    }
  }
}

}  // namespace
}  // namespace halo::cts
