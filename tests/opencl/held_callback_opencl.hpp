// The controls of held_callback_opencl.cpp, an OpenCL library for the
// tests that holds CL_COMPLETE callbacks back until the test delivers them,
// in the order it chooses. The plugin loads the library (named by
// HALO_OPENCL_LIBRARY); a test finds these functions in it with dlsym.
#ifndef HALO_TESTS_OPENCL_HELD_CALLBACK_OPENCL_HPP_
#define HALO_TESTS_OPENCL_HELD_CALLBACK_OPENCL_HPP_

#include <cstddef>

extern "C" {

// From now on, CL_COMPLETE callbacks registered through the library are
// held: the library records them and registers its own callback instead.
void halo_test_hold_callbacks();
// Blocks until the commands of at least |count| held callbacks have
// completed on the device.
void halo_test_wait_held_commands(size_t count);
// Blocks until the command of every held callback has completed, stops
// holding, and delivers the held callbacks on a thread of its own: in the
// order they were registered, or the reverse when |reversed|. Returns once
// every one has returned.
void halo_test_deliver_held_callbacks(bool reversed);

}  // extern "C"

#endif  // HALO_TESTS_OPENCL_HELD_CALLBACK_OPENCL_HPP_
