// Buffers named by another device's commands (external.h, "Buffers named by
// another device's commands").
//
// A command of device D naming buffer B of device E is refused by D's
// plugin, unless libhalo shares B: B was allocated EXPORTABLE, E exports a
// type that D imports for buffers, and D's import succeeds. libhalo then
// imports B into D once per (B, D) pair (import_table.hpp), with B's usage
// and size, and hands D's plugin the import in B's place. The command
// buffer keeps B itself alive too (libhalo holds a reference until the
// command buffer's destroy has run), since the memory an import names
// belongs to B: it outlives every command that names the import.
//
// libhalo learns a buffer's device and params only where it allocates an
// EXPORTABLE one, and a command buffer's device where it creates one; while
// no EXPORTABLE buffer lives, a command pays one load for all this.
#pragma once

#include <vector>

#include "halo/buffer.h"
#include "halo/command_buffer.h"
#include "halo/device.h"
#include "halo/object.h"

namespace halo::loader {

// Notes |buffer|, just allocated on |device| with |params| (checked), which
// ask for EXPORTABLE. Throws std::bad_alloc.
void note_exportable_buffer(halo_device_t* device, halo_buffer_t* buffer,
                            const halo_buffer_params_t& params);

// Notes |command_buffer|, just created on |device|. Throws std::bad_alloc.
void note_command_buffer(halo_device_t* device,
                         halo_command_buffer_t* command_buffer);

// The buffers one recording call hands its plugin: each argument itself, or
// libhalo's import of it into the command buffer's device.
class SharedBufferArguments {
 public:
  explicit SharedBufferArguments(halo_command_buffer_t* command_buffer)
      : command_buffer_(command_buffer) {}
  SharedBufferArguments(const SharedBufferArguments&) = delete;
  SharedBufferArguments& operator=(const SharedBufferArguments&) = delete;
  // Lets go of the imports it handed out (the command buffer retains what
  // it records).
  ~SharedBufferArguments();

  // |buffer| (checked), or its import into the command buffer's device,
  // valid while this object lives. Throws std::bad_alloc.
  halo_buffer_t* operator()(halo_buffer_t* buffer);

  // |params| (checked) itself when no binding is shared, else a copy (valid
  // while this object lives) whose bindings name the imports. Throws
  // std::bad_alloc.
  const halo_dispatch_params_t* dispatch(const halo_dispatch_params_t* params);

 private:
  halo_command_buffer_t* command_buffer_;
  std::vector<halo_buffer_t*> imports_;
  std::vector<halo_buffer_binding_t> bindings_;
  halo_dispatch_params_t params_ = {};
};

// Drops the record and the imports of |buffer|, whose last reference is
// gone (release_object, before its destroy).
void forget_buffer(halo_object_t* buffer) noexcept;

// Takes the record of |command_buffer|, whose last reference is gone
// (release_object, before its destroy), and returns the buffers it kept
// alive: the caller releases them once the destroy has run.
std::vector<halo_buffer_t*> take_command_buffer(
    halo_object_t* command_buffer) noexcept;

// Drops the buffer imports made into |device| (before each public release
// of a device).
void forget_buffer_imports_into_device(halo_device_t* device) noexcept;

}  // namespace halo::loader
