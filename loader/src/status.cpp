// Status objects: the only place that knows their layout (DESIGN.md §2.5).
//
// A status is one allocation holding the code and the NUL-terminated message.
// When memory runs out, a preallocated static RESOURCE_EXHAUSTED status is
// handed out instead, so creating a status never fails; freeing ignores it.
//
// A status libhalo did not make (a plugin's own struct; status_object.hpp)
// reaches these functions when one plugin passes another's status on, or a
// timepoint callback hands it to an application. They never free it, and
// read it as INTERNAL with kForeignMessage, so it cannot crash anyone.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "halo/status.h"
#include "status_object.hpp"

using halo::loader::is_libhalo_status;
using halo::loader::kStatusMagic;

namespace {

halo_status_s g_out_of_memory_status = {
    kStatusMagic, HALO_STATUS_RESOURCE_EXHAUSTED, 0, {'\0'}};

constexpr char kForeignMessage[] =
    "a status not created by libhalo (a plugin made it itself instead of "
    "through the host interface)";

// One immortal status per code, for hot paths that must not allocate. Each is
// its own allocation made once and never freed (the message varies in size).
halo_status_t g_code_statuses[HALO_STATUS_CODE_COUNT_] = {};

bool is_immortal(halo_status_t status) {
  if (status == &g_out_of_memory_status) return true;
  const int code = static_cast<int>(status->code);
  return code >= 0 && code < HALO_STATUS_CODE_COUNT_ &&
         __atomic_load_n(&g_code_statuses[code], __ATOMIC_ACQUIRE) == status;
}

halo_status_t allocate_status(halo_status_code_t code, const char* message,
                              size_t length) {
  auto* status = static_cast<halo_status_s*>(
      std::malloc(offsetof(halo_status_s, message) + length + 1));
  if (status == nullptr) return &g_out_of_memory_status;
  status->magic = kStatusMagic;
  status->code = code;
  status->length = length;
  if (length > 0) std::memcpy(status->message, message, length);
  status->message[length] = '\0';
  return status;
}

}  // namespace

extern "C" {

halo_status_t halo_status_create(halo_status_code_t code, const char* message) {
  if (code == HALO_STATUS_OK) return HALO_OK;
  if (message == nullptr) message = "";
  return allocate_status(code, message, std::strlen(message));
}

halo_status_t halo_status_format(halo_status_code_t code, const char* format,
                                 ...) {
  if (code == HALO_STATUS_OK) return HALO_OK;
  if (format == nullptr) return halo_status_create(code, "");
  va_list args;
  va_start(args, format);
  va_list measure;
  va_copy(measure, args);
  const int length = std::vsnprintf(nullptr, 0, format, measure);
  va_end(measure);
  if (length < 0) {  // An encoding error: keep the format itself as the text.
    va_end(args);
    return halo_status_create(code, format);
  }
  const size_t size = static_cast<size_t>(length);
  auto* status = static_cast<halo_status_s*>(
      std::malloc(offsetof(halo_status_s, message) + size + 1));
  if (status == nullptr) {
    va_end(args);
    return &g_out_of_memory_status;
  }
  status->magic = kStatusMagic;
  status->code = code;
  status->length = size;
  std::vsnprintf(status->message, size + 1, format, args);
  va_end(args);
  return status;
}

halo_status_t halo_status_from_code(halo_status_code_t code) {
  const int index = static_cast<int>(code);
  if (code == HALO_STATUS_OK) return HALO_OK;
  if (index < 0 || index >= HALO_STATUS_CODE_COUNT_) {
    return halo_status_create(code, "unrecognized status code");
  }
  halo_status_t existing =
      __atomic_load_n(&g_code_statuses[index], __ATOMIC_ACQUIRE);
  if (existing != nullptr) return existing;
  const char* text = halo_status_code_description(code);
  halo_status_t created = allocate_status(code, text, std::strlen(text));
  if (created == &g_out_of_memory_status) return created;
  if (!__atomic_compare_exchange_n(&g_code_statuses[index], &existing, created,
                                   false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    std::free(created);  // Another thread published first.
    return existing;
  }
  return created;
}

halo_status_t halo_status_clone(halo_status_t status) {
  if (status == nullptr) return nullptr;
  if (!is_libhalo_status(status)) {
    return halo_status_create(HALO_STATUS_INTERNAL, kForeignMessage);
  }
  if (is_immortal(status)) return status;
  return allocate_status(status->code, status->message, status->length);
}

void halo_status_free(halo_status_t status) {
  if (status == nullptr || !is_libhalo_status(status) || is_immortal(status)) {
    return;
  }
  // Cleared so that a stale pointer to this memory no longer passes for a
  // status.
  status->magic = 0;
  std::free(status);
}

halo_status_code_t halo_status_code(halo_status_t status) {
  if (status == nullptr) return HALO_STATUS_OK;
  return is_libhalo_status(status) ? status->code : HALO_STATUS_INTERNAL;
}

const char* halo_status_message(halo_status_t status) {
  if (status == nullptr) return "";
  return is_libhalo_status(status) ? status->message : kForeignMessage;
}

const char* halo_status_code_name(halo_status_code_t code) {
  switch (code) {
#define HALO_STATUS_NAME_CASE_(name, value, text) \
  case HALO_STATUS_##name:                        \
    return #name;
    HALO_STATUS_CODE_LIST(HALO_STATUS_NAME_CASE_)
#undef HALO_STATUS_NAME_CASE_
    default:
      return "UNRECOGNIZED";
  }
}

const char* halo_status_code_description(halo_status_code_t code) {
  switch (code) {
#define HALO_STATUS_TEXT_CASE_(name, value, text) \
  case HALO_STATUS_##name:                        \
    return text;
    HALO_STATUS_CODE_LIST(HALO_STATUS_TEXT_CASE_)
#undef HALO_STATUS_TEXT_CASE_
    default:
      return "unrecognized status code";
  }
}

halo_status_t halo_status_annotate(halo_status_t status, const char* prefix) {
  if (status == nullptr) return nullptr;
  if (!is_libhalo_status(status)) {
    // Not ours to free: the annotated copy replaces it.
    const bool has_prefix = prefix != nullptr && prefix[0] != '\0';
    return halo_status_format(HALO_STATUS_INTERNAL, "%s%s%s",
                              has_prefix ? prefix : "", has_prefix ? ": " : "",
                              kForeignMessage);
  }
  if (prefix == nullptr || prefix[0] == '\0') return status;
  halo_status_t annotated =
      halo_status_format(status->code, "%s: %s", prefix, status->message);
  if (annotated == &g_out_of_memory_status) return status;
  halo_status_free(status);
  return annotated;
}

}  // extern "C"
