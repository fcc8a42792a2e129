// Fault injection for the global operator new of a test program: while an
// AllocationFailure is alive on a thread, the allocation with the given index
// (0 = the next one) made on that thread fails as if memory ran out. The
// program must link failing_new.cpp, which replaces every form of operator
// new and delete; libhalo's allocations go through them too.
#ifndef HALO_TESTS_LOADER_FAILING_NEW_HPP_
#define HALO_TESTS_LOADER_FAILING_NEW_HPP_

namespace halo_test {

class AllocationFailure {
 public:
  explicit AllocationFailure(long failing_index);
  ~AllocationFailure();
  AllocationFailure(const AllocationFailure&) = delete;
  AllocationFailure& operator=(const AllocationFailure&) = delete;

  // True once the chosen allocation was reached (and failed).
  bool triggered() const;
};

}  // namespace halo_test

#endif  // HALO_TESTS_LOADER_FAILING_NEW_HPP_
