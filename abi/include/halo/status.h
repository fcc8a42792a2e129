/* Status: the result of every fallible call.
 *
 * A halo_status_t is NULL for OK, otherwise an opaque object owned by whoever
 * holds it; only libhalo knows its layout and frees it. Plugins create statuses
 * through the host interface (plugin.h), never by linking libhalo. A function
 * that returns a status passes its ownership to the caller. */
#ifndef HALO_STATUS_H_
#define HALO_STATUS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "halo/abi.h"

/* The one table of status codes: X(NAME, value, "description"). gRPC-style
 * codes plus DEFERRED. Every list of codes, names and strings is generated
 * from it. */
#define HALO_STATUS_CODE_LIST(X)                                              \
  X(OK, 0, "success")                                                         \
  X(CANCELLED, 1, "the operation was cancelled")                              \
  X(UNKNOWN, 2, "unknown error")                                              \
  X(INVALID_ARGUMENT, 3, "an argument is invalid")                            \
  X(DEADLINE_EXCEEDED, 4, "the deadline passed before the operation finished") \
  X(NOT_FOUND, 5, "a requested entity was not found")                         \
  X(ALREADY_EXISTS, 6, "the entity already exists")                           \
  X(PERMISSION_DENIED, 7, "permission denied")                                \
  X(RESOURCE_EXHAUSTED, 8, "a resource is exhausted")                         \
  X(FAILED_PRECONDITION, 9, "the system is not in a state that allows this")  \
  X(ABORTED, 10, "the operation was aborted")                                 \
  X(OUT_OF_RANGE, 11, "a value is out of range")                              \
  X(UNIMPLEMENTED, 12, "the operation is not implemented")                    \
  X(INTERNAL, 13, "internal error")                                           \
  X(UNAVAILABLE, 14, "the service is unavailable")                            \
  X(DATA_LOSS, 15, "unrecoverable data loss")                                 \
  X(DEFERRED, 16, "the operation was deferred and completes later")

typedef enum halo_status_code_e {
#define HALO_STATUS_CODE_ENUM_(name, value, text) HALO_STATUS_##name = value,
  HALO_STATUS_CODE_LIST(HALO_STATUS_CODE_ENUM_)
#undef HALO_STATUS_CODE_ENUM_
  HALO_STATUS_CODE_COUNT_ = 17
} halo_status_code_t;

/* Opaque status object; NULL means OK. */
typedef struct halo_status_s* halo_status_t;

#define HALO_OK ((halo_status_t)NULL)

/* Returns a new status with |code| and a copy of |message| (may be NULL).
 * Returns NULL (OK) when |code| is HALO_STATUS_OK. Never fails: when memory is
 * exhausted, a preallocated RESOURCE_EXHAUSTED status is returned instead.
 * Thread-safe. */
HALO_API HALO_MUST_USE halo_status_t halo_status_create(
    halo_status_code_t code, const char* message);

/* Returns an immortal status with |code| and the code's description as its
 * message, without allocating: for hot paths such as a poll that misses. Free
 * and clone accept it like any status. Returns NULL for HALO_STATUS_OK. */
HALO_API HALO_MUST_USE halo_status_t halo_status_from_code(
    halo_status_code_t code);

/* Like halo_status_create with a printf-style message. */
HALO_API HALO_MUST_USE halo_status_t halo_status_format(
    halo_status_code_t code, const char* format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Returns a new status with the same code and message as |status| (borrowed).
 * Returns NULL for NULL. */
HALO_API HALO_MUST_USE halo_status_t halo_status_clone(halo_status_t status);

/* Takes ownership of |status| and frees it. Accepts NULL. A status libhalo
 * did not create (a plugin made it itself instead of through the host
 * interface) is recognised and never freed. */
HALO_API void halo_status_free(halo_status_t status);

/* Returns the code of |status| (borrowed); HALO_STATUS_OK for NULL;
 * HALO_STATUS_INTERNAL for a status libhalo did not create. Every libhalo call
 * that receives such a status from a plugin returns INTERNAL naming the
 * plugin instead. */
HALO_API halo_status_code_t halo_status_code(halo_status_t status);

/* Returns the message of |status| (borrowed; valid while |status| lives);
 * "" for NULL; a fixed text saying so for a status libhalo did not create. */
HALO_API const char* halo_status_message(halo_status_t status);

/* Returns the upper-case name of |code| ("INVALID_ARGUMENT"), or "UNRECOGNIZED"
 * for a value outside the table. The string is static. */
HALO_API const char* halo_status_code_name(halo_status_code_t code);

/* Returns the static one-line description of |code|. */
HALO_API const char* halo_status_code_description(halo_status_code_t code);

/* Returns a new status (or NULL) and frees |status|: the message becomes
 * "|prefix|: <old message>", the code is kept. Takes ownership of |status|. */
HALO_API HALO_MUST_USE halo_status_t halo_status_annotate(
    halo_status_t status, const char* prefix);

#endif /* HALO_STATUS_H_ */
