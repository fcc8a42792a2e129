/* The ABI layout checks in C, plus the header macros that run at run time:
 * HALO_VTABLE_HAS, which is how a caller decides whether a plugin built for
 * an older minor version has an entry, and HALO_OBJECT_HEADER_INIT. Returns
 * non-zero (and says what failed) when a check fails. */
#include <stdio.h>
#include <string.h>

#include "abi_layout.h"

/* Defined in abi_layout_test_cpp.cpp: the same layout seen from C++. */
int halo_abi_layout_cpp_checks(void);

static int g_failures;

#define EXPECT(expression)                                          \
  do {                                                              \
    if (!(expression)) {                                            \
      fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__,    \
              #expression);                                         \
      ++g_failures;                                                 \
    }                                                               \
  } while (0)

static halo_status_t fake_query(halo_semaphore_t* semaphore, uint64_t* out_value) {
  (void)semaphore;
  *out_value = 0;
  return HALO_OK;
}

static halo_device_t* fake_device(halo_semaphore_t* semaphore) {
  (void)semaphore;
  return NULL;
}

static void check_vtable_has(void) {
  halo_semaphore_vtable_t vtable;
  memset(&vtable, 0, sizeof(vtable));
  vtable.query = fake_query;
  vtable.device = fake_device;

  /* A vtable of the full size has both entries. */
  vtable.object.struct_size = sizeof(vtable);
  EXPECT(HALO_VTABLE_HAS(&vtable, halo_semaphore_vtable_t, query));
  EXPECT(HALO_VTABLE_HAS(&vtable, halo_semaphore_vtable_t, device));
  /* A NULL entry within the size is absent. */
  EXPECT(!HALO_VTABLE_HAS(&vtable, halo_semaphore_vtable_t, signal));

  /* An older, shorter vtable ends before |device|: the entry is absent even
   * though the memory past its end happens to hold a pointer. */
  vtable.object.struct_size = (uint32_t)offsetof(halo_semaphore_vtable_t, device);
  EXPECT(HALO_VTABLE_HAS(&vtable, halo_semaphore_vtable_t, query));
  EXPECT(!HALO_VTABLE_HAS(&vtable, halo_semaphore_vtable_t, device));

  /* One byte short of covering the entry is still too short. */
  vtable.object.struct_size =
      (uint32_t)(offsetof(halo_semaphore_vtable_t, device) + sizeof(void*) - 1);
  EXPECT(!HALO_VTABLE_HAS(&vtable, halo_semaphore_vtable_t, device));

  const halo_semaphore_vtable_t* none = NULL;
  EXPECT(!HALO_VTABLE_HAS(none, halo_semaphore_vtable_t, query));
}

static void check_object_header_init(void) {
  static const halo_object_vtable_t vtable = {sizeof(halo_object_vtable_t),
                                              HALO_OBJECT_TYPE_DEVICE, NULL};
  halo_object_t object = HALO_OBJECT_HEADER_INIT(&vtable);
  EXPECT(object.ref_count == 1);
  EXPECT(object.reserved0 == 0);
  EXPECT(object.vtable == &vtable);
}

static void check_status_table(void) {
  /* The X-macro generates one dense list of names. */
  static const char* const names[] = {
#define HALO_TEST_NAME_(name, value, text) #name,
      HALO_STATUS_CODE_LIST(HALO_TEST_NAME_)
#undef HALO_TEST_NAME_
  };
  EXPECT(sizeof(names) / sizeof(names[0]) == HALO_STATUS_CODE_COUNT_);
  EXPECT(strcmp(names[HALO_STATUS_INVALID_ARGUMENT], "INVALID_ARGUMENT") == 0);
  EXPECT(strcmp(names[HALO_STATUS_DEFERRED], "DEFERRED") == 0);
}

int main(void) {
  check_vtable_has();
  check_object_header_init();
  check_status_table();
  g_failures += halo_abi_layout_cpp_checks();
  if (g_failures != 0) {
    fprintf(stderr, "%d ABI check(s) failed\n", g_failures);
    return 1;
  }
  printf("ABI layout checks passed\n");
  return 0;
}
