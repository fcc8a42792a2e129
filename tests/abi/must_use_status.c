/* Compiled by check_must_use.cmake, as C and as C++, twice: as it is, where
 * every status is used, it must compile cleanly under -Werror; with
 * HALO_IGNORE_STATUS defined it drops a status and must not compile. */
#include "halo/halo.h"

int check_signal(halo_semaphore_t* semaphore) {
#ifdef HALO_IGNORE_STATUS
  halo_semaphore_signal(semaphore, 1);
  return 0;
#else
  halo_status_t status = halo_semaphore_signal(semaphore, 1);
  const int ok = status == HALO_OK;
  halo_status_free(status);
  return ok;
#endif
}
