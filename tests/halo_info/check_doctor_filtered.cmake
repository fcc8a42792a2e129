# halo-info --doctor on a plugin filtered out by HALO_PLUGINS_DISABLE, then
# by HALO_PLUGINS_SELECT: the finding names the variable, its value and the
# glob, and says how to let the plugin through; an unfiltered plugin beside
# it is OK.
#
#   cmake -DHALO_INFO=… -DHELPERS=… -DGOOD_DIR=… -DSCRATCH=…
#         -P check_doctor_filtered.cmake
cmake_minimum_required(VERSION 3.25)
include(${HELPERS})

clear_discovery_environment()
use_empty_icd_folders("${SCRATCH}")
set(ENV{HALO_PLUGIN_FILES} "${GOOD_DIR}/test_alpha.json:${GOOD_DIR}/test_beta.json")

set(ENV{HALO_PLUGINS_DISABLE} "test_omega, test_a*")
run_halo_info(disable --doctor)
expect_contains("${disable_out}" "
  test_alpha: skipped, no device
    [filtered] HALO_PLUGINS_DISABLE='test_omega, test_a*' disables it (the glob 'test_a*' matches 'test_alpha')
      what to do: remove 'test_a*' from HALO_PLUGINS_DISABLE, or unset HALO_PLUGINS_DISABLE
")
expect_contains("${disable_out}" "\n  test_beta: OK, 1 device\n")
run_halo_info(disable_json --doctor --json)
doctor_finding_ids(ids "${disable_json_out}" test_alpha)
if(NOT ids STREQUAL "filtered")
  fail("test_alpha's findings are '${ids}', expected 'filtered' alone")
endif()
doctor_finding_ids(ids "${disable_json_out}" test_beta)
if(NOT ids STREQUAL "")
  fail("test_beta has findings '${ids}'")
endif()

unset(ENV{HALO_PLUGINS_DISABLE})
set(ENV{HALO_PLUGINS_SELECT} "test_b*")
run_halo_info(select --doctor)
expect_contains("${select_out}" "
    [filtered] HALO_PLUGINS_SELECT='test_b*' selects only other plugins (no glob matches 'test_alpha')
      what to do: add 'test_alpha' to HALO_PLUGINS_SELECT (comma-separated globs), or unset HALO_PLUGINS_SELECT
")
finish("${disable_out}\n${select_out}")
message(STATUS "halo-info --doctor explains a filtered plugin")
