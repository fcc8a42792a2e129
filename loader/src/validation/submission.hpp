// A submission as validation sees it: what it waits for, what it signals and
// which buffer ranges its command buffers read and write.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "command_accesses.hpp"
#include "halo/semaphore.h"
#include "switch.hpp"

namespace halo::loader::validation {

struct Timepoint {
  halo_semaphore_t* semaphore = nullptr;
  uint64_t value = 0;
};

struct Submission {
  // #1, #2, … in submission order, process-wide.
  uint64_t serial = 0;
  std::string device_name;
  std::shared_ptr<const RegistryValidation> settings;
  // Each semaphore named here holds one reference of the tracker's.
  std::vector<Timepoint> waits;
  std::vector<Timepoint> signals;
  std::vector<BufferAccess> accesses;
};

// Semaphore payloads as of one check: a value, or nullopt once failed.
using Payloads = std::unordered_map<const halo_semaphore_t*,
                                    std::optional<uint64_t>>;

// "#3 on 'cpu device'".
std::string name_of(const Submission& submission);

}  // namespace halo::loader::validation
