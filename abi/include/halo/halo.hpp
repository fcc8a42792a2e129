// A thin, header-only C++20 layer over the halo C API for application authors.
//
// Nothing here crosses the plugin boundary: it only calls the HALO_API
// functions of libhalo, so applications get exceptions and RAII while plugins
// keep the plain C ABI (DESIGN.md §2, rule 6). Errors become halo::Error;
// handles are reference-counted values where copying retains and destruction
// releases. halo::Registry has no retain function in the C API, so it is
// move-only. Coroutine awaits of fences and semaphores are in halo/await.hpp.
//
// Every function of halo/halo.h is reachable from here: the objects
// (Registry, Driver, Device, Semaphore, Buffer, CommandBuffer, Executable,
// Fence, WaitHandle, and Object for any of them); RAII for what the C API
// pairs (Mapping for map and unmap, Timepoint for acquire and cancel);
// builders (a CommandBuffer records by chaining, Submission submits); and
// free functions for statuses, deadlines and multi-semaphore waits. Where a
// C++ type would only rename a C struct (infos, capabilities, external
// handles, bindings) the C struct is used as it is.
#ifndef HALO_HALO_HPP_
#define HALO_HALO_HPP_

// Concepts, ranges and std::span need C++20. Nothing is included without
// it, so this one line is the only error a compiler prints instead of a
// cascade from the parts.
#if !defined(__cplusplus) || __cplusplus < 202002L
#error "halo/halo.hpp needs C++20 (compile with -std=c++20 or later); C code includes halo/halo.h"
#else

// One header per part, each the C++ twin of its C header.
#include "halo/buffer.hpp"
#include "halo/command_buffer.hpp"
#include "halo/device.hpp"
#include "halo/fence.hpp"
#include "halo/object.hpp"
#include "halo/registry.hpp"
#include "halo/semaphore.hpp"
#include "halo/status.hpp"

#endif  // C++20
#endif  // HALO_HALO_HPP_
