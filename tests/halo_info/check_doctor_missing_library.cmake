# halo-info --doctor on a manifest whose library does not exist: the finding
# names the library and the manifest, and says to reinstall or correct
# plugin.library_path. The manifest is named by HALO_PLUGIN_FILES, so the
# doctor also notes that the default folders were not searched.
#
#   cmake -DHALO_INFO=… -DHELPERS=… -DMANIFEST=… -DSCRATCH=…
#         -P check_doctor_missing_library.cmake
cmake_minimum_required(VERSION 3.25)
include(${HELPERS})

clear_discovery_environment()
use_empty_icd_folders("${SCRATCH}")
set(ENV{HALO_PLUGIN_FILES} "${MANIFEST}")
get_filename_component(folder "${MANIFEST}" DIRECTORY)

run_halo_info(text --doctor)
expect_contains("${text_out}" "
  test_gone: skipped, no device
    [library-missing] the library ${folder}/libhalo_plugin_test_gone.so does not exist (the manifest ${MANIFEST} names it)
      what to do: reinstall the plugin, or correct plugin.library_path in ${MANIFEST} (a path relative to the manifest's folder)
")
expect_contains("${text_out}" "[plugin-files-replace] HALO_PLUGIN_FILES='${MANIFEST}' is set")

run_halo_info(json --doctor --json)
doctor_finding_ids(ids "${json_out}" test_gone)
if(NOT ids STREQUAL "library-missing")
  fail("test_gone's findings are '${ids}', expected 'library-missing' alone")
endif()
expect_json("${json_out}" NOT_FOUND plugins 0 skip_code)
expect_json("${json_out}" plugin-files-replace doctor findings 0 id)
expect_json("${json_out}" HALO_PLUGIN_FILES doctor manifest_paths 0 source)
expect_json("${json_out}" file doctor manifest_paths 0 state)
finish("${text_out}")
message(STATUS "halo-info --doctor explains a missing library")
