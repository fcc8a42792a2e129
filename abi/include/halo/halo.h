/* The whole public halo C API for applications. */
#ifndef HALO_HALO_H_
#define HALO_HALO_H_

#include "halo/abi.h"
#include "halo/allocator.h"
#include "halo/buffer.h"
#include "halo/command_buffer.h"
#include "halo/deadline.h"
#include "halo/device.h"
#include "halo/driver.h"
#include "halo/executable.h"
#include "halo/external.h"
#include "halo/external_handle.h"
#include "halo/fence.h"
#include "halo/object.h"
#include "halo/registry.h"
#include "halo/semaphore.h"
#include "halo/status.h"

#endif /* HALO_HALO_H_ */
