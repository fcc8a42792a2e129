// Unit tests of object_from / object_cast: a handle is only taken for a T
// when its vtable is T's.
#include "halo/sdk/object_cast.hpp"

#include <gtest/gtest.h>

#include "halo/buffer.h"

namespace halo::sdk {
namespace {

void destroy_nothing(halo_object_t*) {}

// A vtable with only the common header: all the helpers look at.
struct TestVtable {
  halo_object_vtable_t object;
};

struct Thing {
  halo_object_t header;
  int value = 0;
  static const TestVtable kVtable;
};
const TestVtable Thing::kVtable = {
    .object = {.struct_size = sizeof(TestVtable),
               .type = HALO_OBJECT_TYPE_BUFFER,
               .destroy = &destroy_nothing},
};

// Another plugin's buffer type: same type tag, another vtable.
struct Other {
  halo_object_t header;
  static const TestVtable kVtable;
};
const TestVtable Other::kVtable = {
    .object = {.struct_size = sizeof(TestVtable),
               .type = HALO_OBJECT_TYPE_BUFFER,
               .destroy = &destroy_nothing},
};

TEST(ObjectCastTest, FromTakesOnlyItsOwnType) {
  Thing thing{HALO_OBJECT_HEADER_INIT(&Thing::kVtable), 7};
  Other other{HALO_OBJECT_HEADER_INIT(&Other::kVtable)};
  auto* thing_handle = reinterpret_cast<halo_buffer_t*>(&thing);
  auto* other_handle = reinterpret_cast<halo_buffer_t*>(&other);
  EXPECT_EQ(object_from<Thing>(thing_handle), &thing);
  EXPECT_EQ(object_from<Thing>(other_handle), nullptr);
  EXPECT_EQ(object_from<Other>(other_handle), &other);
  EXPECT_EQ(object_from<Thing>(static_cast<halo_buffer_t*>(nullptr)), nullptr);
  EXPECT_TRUE(is_object_of<Thing>(thing_handle));
  EXPECT_FALSE(is_object_of<Thing>(other_handle));
}

TEST(ObjectCastTest, CastReturnsTheObjectOfItsOwnType) {
  Thing thing{HALO_OBJECT_HEADER_INIT(&Thing::kVtable), 7};
  auto* handle = reinterpret_cast<halo_buffer_t*>(&thing);
  EXPECT_EQ(object_cast<Thing>(handle)->value, 7);
  // From the object header too, as destroy receives it.
  EXPECT_EQ(object_cast<Thing>(&thing.header), &thing);
}

#ifndef NDEBUG
TEST(ObjectCastDeathTest, CastOfAnotherTypeAssertsInDebugBuilds) {
  Other other{HALO_OBJECT_HEADER_INIT(&Other::kVtable)};
  auto* handle = reinterpret_cast<halo_buffer_t*>(&other);
  EXPECT_DEATH(object_cast<Thing>(handle), "not of the expected type");
}
#endif

}  // namespace
}  // namespace halo::sdk
