// The property checks of the harnesses: a broken property aborts, which
// libFuzzer reports as a crash with the input that broke it.
#ifndef HALO_TESTS_FUZZ_FUZZ_CHECK_HPP_
#define HALO_TESTS_FUZZ_FUZZ_CHECK_HPP_

#include <cstdio>
#include <cstdlib>

#define HALO_FUZZ_CHECK(condition)                                      \
  do {                                                                  \
    if (!(condition)) {                                                 \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__,    \
                   __LINE__, #condition);                               \
      std::abort();                                                     \
    }                                                                   \
  } while (0)

#endif  // HALO_TESTS_FUZZ_FUZZ_CHECK_HPP_
