// The status helpers of status.h, checked for every code of the X-macro table
// so that a code added to the table is tested without touching this file.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "halo/halo.hpp"

namespace halo_test {
namespace {

struct CodeEntry {
  halo_status_code_t code;
  const char* name;
  const char* description;
};

void PrintTo(const CodeEntry& entry, std::ostream* out) { *out << entry.name; }

const std::vector<CodeEntry> kCodes = {
#define HALO_TEST_CODE_ENTRY_(name, value, text) {HALO_STATUS_##name, #name, text},
    HALO_STATUS_CODE_LIST(HALO_TEST_CODE_ENTRY_)
#undef HALO_TEST_CODE_ENTRY_
};

class StatusCodeTest : public ::testing::TestWithParam<CodeEntry> {};

TEST_P(StatusCodeTest, NameAndDescriptionComeFromTheTable) {
  const CodeEntry& entry = GetParam();
  EXPECT_STREQ(halo_status_code_name(entry.code), entry.name);
  EXPECT_STREQ(halo_status_code_description(entry.code), entry.description);
}

TEST_P(StatusCodeTest, CreateKeepsCodeAndMessage) {
  const CodeEntry& entry = GetParam();
  halo::StatusPtr status(halo_status_create(entry.code, "the message"));
  if (entry.code == HALO_STATUS_OK) {
    EXPECT_EQ(status, nullptr);
    return;
  }
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(halo_status_code(status.get()), entry.code);
  EXPECT_STREQ(halo_status_message(status.get()), "the message");
}

TEST_P(StatusCodeTest, CloneAndAnnotateKeepTheCode) {
  const CodeEntry& entry = GetParam();
  if (entry.code == HALO_STATUS_OK) {
    // OK is NULL, and cloning or annotating NULL gives NULL.
    EXPECT_EQ(halo_status_clone(halo_status_create(entry.code, "inner")), nullptr);
    EXPECT_EQ(halo_status_annotate(halo_status_create(entry.code, "inner"), "outer"),
              nullptr);
    return;
  }
  halo::StatusPtr original(halo_status_create(entry.code, "inner"));
  halo::StatusPtr clone(halo_status_clone(original.get()));
  ASSERT_NE(clone, nullptr);
  EXPECT_NE(clone.get(), original.get());
  EXPECT_EQ(halo_status_code(clone.get()), entry.code);
  EXPECT_STREQ(halo_status_message(clone.get()), "inner");

  halo::StatusPtr annotated(halo_status_annotate(clone.release(), "outer"));
  ASSERT_NE(annotated, nullptr);
  EXPECT_EQ(halo_status_code(annotated.get()), entry.code);
  EXPECT_STREQ(halo_status_message(annotated.get()), "outer: inner");
  // The original is untouched by its clone's annotation.
  EXPECT_STREQ(halo_status_message(original.get()), "inner");
}

// The immortal statuses of hot paths: the code's description as message, and
// free and clone treat them like any other status.
TEST_P(StatusCodeTest, FromCodeIsImmortalAndBehavesLikeAnyStatus) {
  const CodeEntry& entry = GetParam();
  halo_status_t status = halo_status_from_code(entry.code);
  if (entry.code == HALO_STATUS_OK) {
    EXPECT_EQ(status, nullptr);
    return;
  }
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(halo_status_code(status), entry.code);
  EXPECT_STREQ(halo_status_message(status), entry.description);
  halo::StatusPtr clone(halo_status_clone(status));
  ASSERT_NE(clone, nullptr);
  EXPECT_EQ(halo_status_code(clone.get()), entry.code);
  EXPECT_STREQ(halo_status_message(clone.get()), entry.description);
  halo_status_free(status);
  // Still valid after a free: the same immortal status comes back.
  halo_status_t again = halo_status_from_code(entry.code);
  EXPECT_EQ(halo_status_code(again), entry.code);
  EXPECT_STREQ(halo_status_message(again), entry.description);
  halo::StatusPtr annotated(halo_status_annotate(again, "context"));
  EXPECT_EQ(halo_status_code(annotated.get()), entry.code);
  EXPECT_EQ(std::string(halo_status_message(annotated.get())),
            std::string("context: ") + entry.description);
}

INSTANTIATE_TEST_SUITE_P(EveryCode, StatusCodeTest, ::testing::ValuesIn(kCodes),
                         [](const ::testing::TestParamInfo<CodeEntry>& info) {
                           return std::string(info.param.name);
                         });

TEST(StatusTest, TableIsDenseAndCounted) {
  ASSERT_EQ(kCodes.size(), static_cast<size_t>(HALO_STATUS_CODE_COUNT_));
  for (size_t i = 0; i < kCodes.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(kCodes[i].code), i) << kCodes[i].name;
  }
}

TEST(StatusTest, UnknownCodesHaveAName) {
  EXPECT_STREQ(halo_status_code_name(HALO_STATUS_CODE_COUNT_), "UNRECOGNIZED");
  EXPECT_STREQ(halo_status_code_name(static_cast<halo_status_code_t>(1000)),
               "UNRECOGNIZED");
  EXPECT_NE(halo_status_code_description(static_cast<halo_status_code_t>(1000)),
            nullptr);
}

TEST(StatusTest, NullIsOk) {
  EXPECT_EQ(halo_status_code(HALO_OK), HALO_STATUS_OK);
  EXPECT_STREQ(halo_status_message(HALO_OK), "");
  EXPECT_EQ(halo_status_clone(HALO_OK), HALO_OK);
  EXPECT_EQ(halo_status_annotate(HALO_OK, "prefix"), HALO_OK);
  halo_status_free(HALO_OK);
}

TEST(StatusTest, NullMessageIsEmpty) {
  halo::StatusPtr status(halo_status_create(HALO_STATUS_INTERNAL, nullptr));
  ASSERT_NE(status, nullptr);
  EXPECT_STREQ(halo_status_message(status.get()), "");
}

TEST(StatusTest, CreateCopiesTheMessage) {
  std::string message = "temporary";
  halo::StatusPtr status(halo_status_create(HALO_STATUS_ABORTED, message.c_str()));
  message.assign("overwritten");
  EXPECT_STREQ(halo_status_message(status.get()), "temporary");
}

TEST(StatusTest, FormatFormats) {
  halo::StatusPtr status(
      halo_status_format(HALO_STATUS_OUT_OF_RANGE, "%s %d of %zu", "index", 7, size_t{3}));
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(halo_status_code(status.get()), HALO_STATUS_OUT_OF_RANGE);
  EXPECT_STREQ(halo_status_message(status.get()), "index 7 of 3");
  EXPECT_EQ(halo_status_format(HALO_STATUS_OK, "%d", 1), HALO_OK);
}

// Messages are not cut at some internal buffer size.
TEST(StatusTest, LongMessagesSurviveWhole) {
  const std::string long_text(5000, 'x');
  halo::StatusPtr created(halo_status_create(HALO_STATUS_UNKNOWN, long_text.c_str()));
  EXPECT_EQ(std::string(halo_status_message(created.get())), long_text);
  halo::StatusPtr formatted(
      halo_status_format(HALO_STATUS_UNKNOWN, "%s!", long_text.c_str()));
  EXPECT_EQ(std::string(halo_status_message(formatted.get())), long_text + "!");
}

TEST(StatusTest, AnnotateNests) {
  halo_status_t status = halo_status_create(HALO_STATUS_NOT_FOUND, "file");
  status = halo_status_annotate(status, "open");
  status = halo_status_annotate(status, "load");
  halo::StatusPtr owned(status);
  EXPECT_EQ(halo_status_code(owned.get()), HALO_STATUS_NOT_FOUND);
  EXPECT_STREQ(halo_status_message(owned.get()), "load: open: file");
}

// A status libhalo did not make (a plugin's own struct, here on the stack) is
// recognised by every status function: never freed, and read as INTERNAL.
// Before, its "code" was whatever its first bytes held, and freeing it
// aborted in free().
TEST(StatusTest, StatusLibhaloDidNotMakeIsInternalAndNeverFreed) {
  struct {
    int code;
    const char* message;
  } forged = {HALO_STATUS_ABORTED, "forged"};
  halo_status_t status = reinterpret_cast<halo_status_t>(&forged);
  EXPECT_EQ(halo_status_code(status), HALO_STATUS_INTERNAL);
  EXPECT_NE(std::string(halo_status_message(status)).find("not created by libhalo"),
            std::string::npos)
      << halo_status_message(status);

  halo::StatusPtr clone(halo_status_clone(status));
  ASSERT_NE(clone, nullptr);
  EXPECT_NE(clone.get(), status);
  EXPECT_EQ(halo_status_code(clone.get()), HALO_STATUS_INTERNAL);

  halo::StatusPtr annotated(halo_status_annotate(status, "context"));
  ASSERT_NE(annotated, nullptr);
  EXPECT_NE(annotated.get(), status);
  EXPECT_EQ(halo_status_code(annotated.get()), HALO_STATUS_INTERNAL);
  EXPECT_EQ(std::string(halo_status_message(annotated.get())).rfind("context: ", 0), 0u)
      << halo_status_message(annotated.get());

  halo_status_free(status);
  EXPECT_EQ(forged.code, HALO_STATUS_ABORTED);
  EXPECT_STREQ(forged.message, "forged");
}

}  // namespace
}  // namespace halo_test
