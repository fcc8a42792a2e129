// 32-bit futex waits with absolute CLOCK_MONOTONIC deadlines.
//
// halo deadlines are absolute nanoseconds of CLOCK_MONOTONIC, which is exactly
// what FUTEX_WAIT_BITSET takes, so nested waits compose without drift and
// without reading the clock in user space.
#ifndef HALO_SDK_FUTEX_HPP_
#define HALO_SDK_FUTEX_HPP_

#include <atomic>
#include <cstdint>

#include "halo/deadline.h"

namespace halo::sdk {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
              "a futex word must be a plain 32-bit integer");

// Blocks while |*word| == |expected|, until woken or |deadline| passes.
// Returns false only when the deadline passed; true when woken, when the word
// no longer held |expected|, or on a signal interruption — callers re-check
// their condition in every case. HALO_DEADLINE_INFINITE_PAST returns false at
// once without a system call; HALO_DEADLINE_INFINITE_FUTURE never times out.
bool futex_wait(std::atomic<uint32_t>* word, uint32_t expected,
                halo_time_ns_t deadline) noexcept;

// Wakes every thread blocked on |word|.
void futex_wake_all(std::atomic<uint32_t>* word) noexcept;

// Wakes at most one thread blocked on |word|.
void futex_wake_one(std::atomic<uint32_t>* word) noexcept;

// futex_wait and futex_wake_all for a word of memory other processes map
// too (a halo_host_timeline_t): the kernel then keys the wait by the page,
// not by this process's address. The word is only read atomically.
bool futex_wait_shared(uint32_t* word, uint32_t expected,
                       halo_time_ns_t deadline) noexcept;
void futex_wake_all_shared(uint32_t* word) noexcept;

// Returns the current CLOCK_MONOTONIC time in nanoseconds.
halo_time_ns_t monotonic_now_ns() noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_FUTEX_HPP_
