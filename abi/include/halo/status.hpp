// Statuses and deadlines of the C++ layer (halo/halo.hpp): halo::Error, the
// owned StatusPtr, status helpers for code that keeps a status instead of
// throwing it, and clock and deadline helpers.
#ifndef HALO_STATUS_HPP_
#define HALO_STATUS_HPP_

// The C++ layer needs C++20 (concepts, ranges, std::span). The rest of the
// file is skipped without it, so this one line is the only error a
// compiler prints instead of a cascade; C code includes halo/halo.h.
#if !defined(__cplusplus) || __cplusplus < 202002L
#error "halo's C++ layer (halo/halo.hpp) needs C++20 (compile with -std=c++20 or later); C code includes halo/halo.h"
#else

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "halo/halo.h"

namespace halo {

namespace detail {

// Frees an owned status; the unique_ptr below relies on it accepting NULL.
struct StatusDeleter {
  void operator()(halo_status_t status) const noexcept {
    halo_status_free(status);
  }
};

}  // namespace detail

// An owned status: frees it on destruction. Useful where a caller wants to
// inspect an error instead of throwing it.
using StatusPtr =
    std::unique_ptr<std::remove_pointer_t<halo_status_t>, detail::StatusDeleter>;

// Returns the C string |text| as a std::string; NULL becomes "".
inline std::string string_or_empty(const char* text) {
  return text != nullptr ? std::string(text) : std::string();
}

// Returns the fixed-size char array |text| (as found in the info structs) up to
// its first NUL, never reading past its end even when a plugin forgot the NUL.
// Deliberately not overloaded for const char*: an array argument would pick
// that non-template overload and read to a NUL that may not be there.
template <std::size_t N>
std::string to_string(const char (&text)[N]) {
  return std::string(text, std::find(text, text + N, '\0'));
}

// Returns "MAJOR.MINOR" for a HALO_MAKE_VERSION value.
inline std::string version_string(std::uint32_t version) {
  return std::to_string(HALO_VERSION_MAJOR(version)) + "." +
         std::to_string(HALO_VERSION_MINOR(version));
}

// Returns the upper-case name of |code| ("INVALID_ARGUMENT").
inline std::string_view code_name(halo_status_code_t code) noexcept {
  return halo_status_code_name(code);
}

// Returns the one-line description of |code| ("an argument is invalid").
inline std::string_view code_description(halo_status_code_t code) noexcept {
  return halo_status_code_description(code);
}

// The exception every wrapper below throws: a status code and its message.
// what() is "CODE: message". Derives from std::runtime_error so copies never
// throw, as the standard asks of exception types.
class Error : public std::runtime_error {
 public:
  // Takes ownership of |status| and frees it, even when building the
  // exception's strings throws. A NULL |status| gives an OK code.
  explicit Error(halo_status_t status) : Error(StatusPtr(status)) {}

  Error(halo_status_code_t code, std::string_view message)
      : std::runtime_error(std::string(code_name(code)) + ": " +
                           std::string(message)),
        code_(code),
        message_offset_(code_name(code).size() + 2) {}

  halo_status_code_t code() const noexcept { return code_; }

  // The status message without the "CODE: " prefix; valid while *this lives.
  std::string_view message() const noexcept {
    return std::string_view(what()).substr(message_offset_);
  }

  // Returns a new C status with this code and message, for a C function that
  // takes one (Semaphore::fail); NULL for an OK code.
  StatusPtr to_status() const {
    return StatusPtr(halo_status_create(code_, std::string(message()).c_str()));
  }

 private:
  explicit Error(StatusPtr status)
      : Error(halo_status_code(status.get()),
              halo_status_message(status.get())) {}

  halo_status_code_t code_;
  std::size_t message_offset_;
};

// Takes ownership of |status|: returns when it is OK (NULL), else throws it as
// a halo::Error.
inline void check(halo_status_t status) {
  if (status != nullptr) {
    throw Error(status);
  }
}

namespace detail {

// Takes ownership of |status| from a call with a deadline: returns true for
// OK and false for DEADLINE_EXCEEDED, and throws any other status.
inline bool reached_by_deadline(halo_status_t status) {
  StatusPtr owned(status);
  if (halo_status_code(owned.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
    return false;
  }
  check(owned.release());
  return true;
}

}  // namespace detail

// Statuses for code that keeps one or hands it to the C API instead of
// throwing it; each returns an owned status (NULL for OK).

// Returns a new status of |code| with a copy of |message|, formatted the
// C++ way. It stands in for halo_status_format too: a template forwarding
// printf arguments would escape the compiler's format checks.
inline StatusPtr make_status(halo_status_code_t code, const std::string& message) {
  return StatusPtr(halo_status_create(code, message.c_str()));
}
// Returns the immortal status of |code| with its description: allocates
// nothing, for hot paths.
inline StatusPtr status_from_code(halo_status_code_t code) noexcept {
  return StatusPtr(halo_status_from_code(code));
}
// Returns a copy of |status| (borrowed), code and message.
inline StatusPtr clone_status(halo_status_t status) {
  return StatusPtr(halo_status_clone(status));
}
// Returns |status| with its message prefixed by "|prefix|: ", code kept.
inline StatusPtr annotate_status(StatusPtr status, const std::string& prefix) {
  return StatusPtr(halo_status_annotate(status.release(), prefix.c_str()));
}
// Returns the code of |status| (borrowed); OK for NULL.
inline halo_status_code_t status_code(halo_status_t status) noexcept {
  return halo_status_code(status);
}
// Returns the message of |status| (borrowed; valid while it lives); "" for
// NULL.
inline std::string_view status_message(halo_status_t status) noexcept {
  return halo_status_message(status);
}

// Deadlines (halo/deadline.h) are absolute nanoseconds of CLOCK_MONOTONIC:
// a wait given one composes with the waits around it without drift.
inline constexpr halo_time_ns_t infinite_future = HALO_DEADLINE_INFINITE_FUTURE;
inline constexpr halo_time_ns_t infinite_past = HALO_DEADLINE_INFINITE_PAST;

// Returns the current CLOCK_MONOTONIC time in nanoseconds.
inline halo_time_ns_t now() noexcept { return halo_time_now_ns(); }

// Returns the deadline |timeout| from now: infinite_future for a timeout
// beyond int64 nanoseconds (hours::max() included), infinite_past for one of
// zero or less (a poll). The bound is compared in long double because
// converting such a timeout to nanoseconds first would overflow.
template <typename Rep, typename Period>
halo_time_ns_t deadline_after(std::chrono::duration<Rep, Period> timeout) {
  const std::chrono::duration<long double, std::nano> exact = timeout;
  if (exact.count() >= static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
    return HALO_DEADLINE_INFINITE_FUTURE;
  }
  if (!(exact.count() > 0)) {
    return HALO_DEADLINE_INFINITE_PAST;
  }
  return halo_deadline_after_ns(
      std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
}

}  // namespace halo

#endif  // C++20
#endif  // HALO_STATUS_HPP_
