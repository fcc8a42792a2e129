# halo-info --json over three loader test plugins: test_alpha (one device,
# priority 5), test_multi (seven devices, priority -5) and
# test_device_count_from_env made to list none. Checks the schema and
# version fields, that devices are numbered per driver (halo-cts --device)
# beside their registry index, the limits and memory objects, and that an
# empty device list always has a reason; then the same in the text output.
#
#   cmake -DHALO_INFO=… -DHELPERS=… -DGOOD_DIR=… -DCOUNT_DIR=…
#         -DHALO_VERSION=… -DHALO_ABI=… -P check_json.cmake
cmake_minimum_required(VERSION 3.25)
include(${HELPERS})

clear_discovery_environment()
set(ENV{HALO_PLUGIN_FILES}
    "${GOOD_DIR}/test_alpha.json:${GOOD_DIR}/test_multi.json:${COUNT_DIR}/test_device_count_from_env.json")
set(ENV{HALO_TEST_PLUGIN_DEVICE_COUNT} 0)

run_halo_info(json --json)
expect_json("${json_out}" "halo-info/1" schema)
expect_json("${json_out}" "${HALO_VERSION}" halo_version)
expect_json("${json_out}" "${HALO_ABI}" halo_abi)
expect_json("${json_out}" "${HALO_ABI}" libhalo abi)
string(JSON libhalo_path ERROR_VARIABLE error GET "${json_out}" libhalo path)
if(error OR NOT EXISTS "${libhalo_path}")
  fail("libhalo.path '${libhalo_path}' is not a file")
endif()

# Drivers by priority: test_alpha, test_device_count_from_env, test_multi.
json_find(alpha "${json_out}" plugin test_alpha drivers)
json_find(empty "${json_out}" plugin test_device_count_from_env drivers)
json_find(multi "${json_out}" plugin test_multi drivers)
if(alpha EQUAL -1 OR empty EQUAL -1 OR multi EQUAL -1)
  fail("the drivers are not all listed (${alpha}, ${empty}, ${multi})")
  finish("${json_out}")
endif()
expect_json("${json_out}" 1 drivers ${alpha} device_count)
expect_json("${json_out}" 7 drivers ${multi} device_count)
# The descriptor's ABI, which replaces the manifest's once the plugin loads.
expect_json("${json_out}" "${HALO_ABI}" drivers ${multi} abi_version)
expect_json_type("${json_out}" NULL drivers ${multi} no_devices_reason)
expect_json_type("${json_out}" STRING drivers ${multi} library_path)
foreach(i RANGE 6)
  # test_alpha's one device comes first in the registry.
  math(EXPR registry_index "${i} + 1")
  expect_json("${json_out}" ${i} drivers ${multi} devices ${i} index)
  expect_json("${json_out}" ${registry_index} drivers ${multi} devices ${i} registry_index)
endforeach()
expect_json("${json_out}" 64 drivers ${alpha} devices 0 limits min_buffer_alignment)
expect_json("${json_out}" 9223372036854775807
            drivers ${alpha} devices 0 limits max_semaphore_value_difference)
expect_json_type("${json_out}" NUMBER drivers ${alpha} devices 0 limits max_buffer_size)
expect_json_type("${json_out}" ARRAY drivers ${alpha} devices 0 memory types)
expect_json_type("${json_out}" ARRAY drivers ${alpha} devices 0 capabilities features)
# ABI 1.2's members: the test plugins name a native API and compute units,
# and, without buffers or dispatch, report no memory size or dispatch limit
# (null, not 0).
expect_json("${json_out}" "halo tests 1.0" drivers ${alpha} devices 0 native_api)
expect_json("${json_out}" 1 drivers ${alpha} devices 0 compute_units)
foreach(limit max_workgroup_size max_workgroup_invocations max_workgroup_count
        max_workgroup_count_total max_binding_count max_constant_size)
  expect_json_type("${json_out}" NULL drivers ${alpha} devices 0 limits ${limit})
endforeach()
expect_json_type("${json_out}" NULL drivers ${alpha} devices 0 memory device_memory_size)
# ABI 1.3's: the test plugins share nothing (empty lists, no alignment).
expect_json_type("${json_out}" ARRAY drivers ${alpha} devices 0 sharing buffer_import)
expect_json_type("${json_out}" NULL drivers ${alpha} devices 0 sharing host_allocation_alignment)

# A driver that lists no device and says nothing of why.
expect_json("${json_out}" 0 drivers ${empty} device_count)
expect_json_type("${json_out}" STRING drivers ${empty} no_devices_reason)
string(JSON reason GET "${json_out}" drivers ${empty} no_devices_reason)
expect_contains("${reason}" "the driver lists no device and gives no reason")
expect_contains("${reason}" "loader test plugin test_device_count_from_env")

run_halo_info(text)
expect_contains("${text_out}" "    devices: 7\n    device 0: ")
expect_contains("${text_out}" "      halo-cts: --plugin test_multi --device 6\n      registry index: 7\n")
expect_contains("${text_out}" "    devices: 0\n    no devices: the driver lists no device and gives no reason")
expect_contains("${text_out}" "`halo-info --doctor` says why")
expect_contains("${text_out}" "      native API: halo tests 1.0\n      compute units: ")
expect_contains("${text_out}" "      max workgroup count: (not reported)\n")
finish("${json_out}\n${text_out}")
message(STATUS "halo-info numbers devices per driver and gives every empty list a reason")
