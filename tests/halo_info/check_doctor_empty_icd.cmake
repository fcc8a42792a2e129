# The vulkan and opencl plugins (those built) with an empty ICD folder each,
# chosen through the variables the native loaders honour (VK_DRIVER_FILES,
# OCL_ICD_VENDORS): each driver loads with no device and a reason, and
# halo-info --doctor names the empty folder and what to do.
#
#   cmake -DHALO_INFO=… -DHELPERS=… -DMANIFEST_DIR=… -DPLUGINS=vulkan,opencl
#         -DSCRATCH=… -P check_doctor_empty_icd.cmake
cmake_minimum_required(VERSION 3.25)
include(${HELPERS})

clear_discovery_environment()
file(REMOVE_RECURSE "${SCRATCH}")
file(MAKE_DIRECTORY "${SCRATCH}/vulkan" "${SCRATCH}/opencl")
string(REPLACE "," ";" plugins "${PLUGINS}")
set(manifests "")
foreach(plugin IN LISTS plugins)
  list(APPEND manifests "${MANIFEST_DIR}/${plugin}.json")
endforeach()
list(JOIN manifests ":" manifests)
set(ENV{HALO_PLUGIN_FILES} "${manifests}")
set(ENV{VK_DRIVER_FILES} "${SCRATCH}/vulkan")
set(ENV{OCL_ICD_VENDORS} "${SCRATCH}/opencl")

# What each plugin's folder is chosen by, and how its API is spelt.
set(variable_vulkan VK_DRIVER_FILES)
set(variable_opencl OCL_ICD_VENDORS)
set(api_vulkan Vulkan)
set(api_opencl OpenCL)

run_halo_info(json --doctor --json)
run_halo_info(text --doctor)
run_halo_info(plain)
foreach(plugin IN LISTS plugins)
  json_find(driver "${json_out}" plugin ${plugin} drivers)
  if(driver EQUAL -1)
    fail("the ${plugin} driver did not load")
    continue()
  endif()
  expect_json("${json_out}" 0 drivers ${driver} device_count)
  expect_json_type("${json_out}" STRING drivers ${driver} no_devices_reason)
  doctor_finding_ids(ids "${json_out}" ${plugin})
  expect_in_list("${ids}" no-devices "${plugin}")
  expect_in_list("${ids}" ${plugin}-icd-missing "${plugin}")
  expect_json("${json_out}" ${variable_${plugin}} doctor ${plugin} chosen_by)
  expect_json("${json_out}" 0 doctor ${plugin} paths 0 files)
  expect_contains("${text_out}" "
    [${plugin}-icd-missing] ${variable_${plugin}} names ${SCRATCH}/${plugin} (folder), which holds no ${api_${plugin}} driver (ICD) file
      what to do: point ${variable_${plugin}} at a folder or file holding a driver's ICD file, or unset it")
  expect_contains("${plain_out}" "    devices: 0\n    no devices: no ${api_${plugin}} devices: ")
endforeach()
finish("${text_out}")
message(STATUS "halo-info --doctor explains an empty ICD folder")
