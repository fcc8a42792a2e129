// OpenCL C executables: entry point layouts and workgroup sizes, refusals
// with their reasons (names too long among them), and the build log in the
// status of a program that does not build.
#include <initializer_list>
#include <string>

#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

using ExecutableTest = OpenClTest;

// Returns the info of entry point |name| of |executable|.
halo_entry_point_info_t entry_point(halo_executable_t* executable,
                                    const char* name) {
  uint32_t ordinal = 0;
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  Status lookup(halo_executable_lookup_entry_point(executable, name, &ordinal));
  EXPECT_TRUE(lookup.ok()) << lookup.describe();
  Status query(halo_executable_query_entry_point(executable, ordinal, &info));
  EXPECT_TRUE(query.ok()) << query.describe();
  return info;
}

#define HALO_KERNEL(name, parameters) \
  "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void " name \
  "(" parameters ") {}\n"

TEST_F(ExecutableTest, LayoutCountsBindingsAndAlignsConstants) {
  ExecutablePtr executable;
  HALO_ASSERT_OK(build(
      HALO_KERNEL("two_buffers", "__global float* y, __global const float* x, "
                                 "float a, uint n")
      HALO_KERNEL("wide", "__global uint* out, uint a, ulong b, uint c")
      HALO_KERNEL("scalars_only", "double a, int b")
      HALO_KERNEL("nothing", ""),
      &executable));
  uint32_t count = 0;
  HALO_ASSERT_OK(halo_executable_entry_point_count(executable.get(), &count));
  EXPECT_EQ(count, 4u);
  halo_entry_point_info_t info = entry_point(executable.get(), "two_buffers");
  EXPECT_EQ(info.binding_count, 2u);
  EXPECT_EQ(info.constant_size, 8u);
  info = entry_point(executable.get(), "wide");
  EXPECT_EQ(info.binding_count, 1u);
  EXPECT_EQ(info.constant_size, 20u);  // a@0, b@8 (aligned), c@16.
  info = entry_point(executable.get(), "scalars_only");
  EXPECT_EQ(info.binding_count, 0u);
  EXPECT_EQ(info.constant_size, 12u);  // a@0, b@8.
  info = entry_point(executable.get(), "nothing");
  EXPECT_EQ(info.binding_count, 0u);
  EXPECT_EQ(info.constant_size, 0u);
}

TEST_F(ExecutableTest, EntryPointsAreSortedByName) {
  ExecutablePtr executable;
  HALO_ASSERT_OK(build(HALO_KERNEL("zeta", "") HALO_KERNEL("alpha", "")
                           HALO_KERNEL("mid", ""),
                       &executable));
  const char* expected[] = {"alpha", "mid", "zeta"};
  for (uint32_t i = 0; i < 3; ++i) {
    halo_entry_point_info_t info = {};
    info.struct_size = sizeof(info);
    HALO_ASSERT_OK(halo_executable_query_entry_point(executable.get(), i, &info));
    EXPECT_STREQ(info.name, expected[i]);
  }
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  Status past(halo_executable_query_entry_point(executable.get(), 3, &info));
  EXPECT_EQ(past.code(), HALO_STATUS_OUT_OF_RANGE) << past.describe();
  uint32_t ordinal = 0;
  Status missing(halo_executable_lookup_entry_point(executable.get(), "beta",
                                                    &ordinal));
  EXPECT_EQ(missing.code(), HALO_STATUS_NOT_FOUND) << missing.describe();
}

TEST_F(ExecutableTest, ReportsEachKernelsWorkgroupSize) {
  ExecutablePtr executable;
  HALO_ASSERT_OK(build(
      "__kernel __attribute__((reqd_work_group_size(8, 4, 2))) void cube("
      "__global uint* out) {}\n" HALO_KERNEL("line", "__global uint* out"),
      &executable));
  halo_entry_point_info_t info = entry_point(executable.get(), "cube");
  EXPECT_EQ(info.workgroup_size[0], 8u);
  EXPECT_EQ(info.workgroup_size[1], 4u);
  EXPECT_EQ(info.workgroup_size[2], 2u);
  info = entry_point(executable.get(), "line");
  EXPECT_EQ(info.workgroup_size[0], 64u);
  EXPECT_EQ(info.workgroup_size[1], 1u);
  EXPECT_EQ(info.workgroup_size[2], 1u);
}

TEST_F(ExecutableTest, BuildFailureCarriesTheBuildLog) {
  ExecutablePtr executable;
  Status status(build(
      HALO_KERNEL("broken", "__global uint* out") "int oops = undeclared_name;\n",
      &executable));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT) << status.describe();
  EXPECT_NE(status.message().find("halo_executable_create"), std::string::npos);
  EXPECT_NE(status.message().find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("undeclared_name"), std::string::npos)
      << status.message();
  EXPECT_EQ(executable, nullptr);
}

// Expects |status| (a build) to be INVALID_ARGUMENT naming each of |words|.
void expect_refused(halo_status_t status,
                    std::initializer_list<const char*> words) {
  Status owned(status);
  EXPECT_EQ(owned.code(), HALO_STATUS_INVALID_ARGUMENT) << owned.describe();
  for (const char* word : words) {
    EXPECT_NE(owned.message().find(word), std::string::npos)
        << "'" << word << "' missing from: " << owned.message();
  }
}

TEST_F(ExecutableTest, RefusesLayoutsItCannotBind) {
  ExecutablePtr executable;
  expect_refused(build(HALO_KERNEL("late_buffer", "uint n, __global uint* out"),
                       &executable),
                 {"late_buffer", "after a scalar"});
  expect_refused(build(HALO_KERNEL("local_memory",
                                   "__global uint* out, __local uint* scratch"),
                       &executable),
                 {"local_memory", "parameter 1"});
  expect_refused(build(HALO_KERNEL("small_scalar", "__global uint* out, char c"),
                       &executable),
                 {"small_scalar", "char"});
  expect_refused(build("__kernel void free_size(__global uint* out) {}\n",
                       &executable),
                 {"free_size", "reqd_work_group_size"});
  expect_refused(build("/* no kernels */\n", &executable),
                 {"no kernels"});
  EXPECT_EQ(executable, nullptr);
}

// A kernel like HALO_KERNEL's, with a name and parameters made at run time.
std::string kernel_source(const std::string& name,
                          const std::string& parameters) {
  return "__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void " +
         name + "(" + parameters + ") {}\n";
}

TEST_F(ExecutableTest, LongNamesAreRefusedNamingTheLimit) {
  // Entry point names hold 127 bytes; OpenCL refuses to read a longer name
  // into a buffer of that size at all.
  const std::string long_name(128, 'k'), longest_name(127, 'k');
  ExecutablePtr executable;
  expect_refused(build(kernel_source(long_name, "__global uint* out"),
                       &executable),
                 {std::string(32, 'k').c_str(),
                  "has a name of 128 bytes; entry point names are at most "
                  "127 bytes"});
  HALO_ASSERT_OK(build(kernel_source(longest_name, "__global uint* out"),
                       &executable));
  EXPECT_EQ(entry_point(executable.get(), longest_name.c_str()).binding_count,
            1u);
  // A scalar's type is one of a few short names, so a type name longer than
  // the plugin reads is refused; a binding's type is never needed.
  const std::string long_type = "a_type_" + std::string(130, 't');
  expect_refused(build("typedef int " + long_type + ";\n" +
                           kernel_source("long_scalar", "__global uint* out, " +
                                                            long_type + " n"),
                       &executable),
                 {"long_scalar", "parameter 1 has a type name of 137 bytes",
                  "more than the 127 bytes of the longest the opencl plugin "
                  "reads"});
  HALO_ASSERT_OK(build("typedef uint " + long_type + ";\n" +
                           kernel_source("long_binding", "__global " +
                                                             long_type +
                                                             "* out, uint n"),
                       &executable));
  halo_entry_point_info_t info = entry_point(executable.get(), "long_binding");
  EXPECT_EQ(info.binding_count, 1u);
  EXPECT_EQ(info.constant_size, 4u);
}

TEST_F(ExecutableTest, RefusesFormatsTheDeviceDoesNotTake) {
  const char bytes[] = "\x03\x02\x23\x07 not really SPIR-V";
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.data = bytes;
  params.data_size = sizeof(bytes);
  halo_executable_t* executable = nullptr;
  const std::string offered = capabilities().executable_formats;
  for (const char* format : {"spirv", "cpu-so", "OPENCL-C", "spirv-kernel"}) {
    if (offered.find(format) != std::string::npos) continue;
    params.format = format;
    Status status(halo_executable_create(device(), &params, &executable));
    EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT) << status.describe();
    EXPECT_NE(status.message().find(format), std::string::npos);
  }
  params.format = "opencl-c";
  params.data_size = 0;
  Status empty(halo_executable_create(device(), &params, &executable));
  EXPECT_EQ(empty.code(), HALO_STATUS_INVALID_ARGUMENT) << empty.describe();
  EXPECT_EQ(executable, nullptr);
}

}  // namespace
}  // namespace halo_opencl_test
