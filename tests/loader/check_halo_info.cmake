# Runs halo-info with the broken test plugins added through
# HALO_ADD_PLUGIN_FILES and checks that it exits 0, that cpu loads (when
# EXPECT_CPU), and that every broken plugin is skipped with its code and
# reason, in the text output, in the JSON output and in the debug log.
#
#   cmake -DHALO_INFO=<halo-info> -DBROKEN_DIR=<folder> -DEXPECT_CPU=ON|OFF
#         -P check_halo_info.cmake

cmake_minimum_required(VERSION 3.25)

foreach(variable HALO_PLUGIN_FILES HALO_PLUGINS_SELECT HALO_PLUGINS_DISABLE
                 HALO_LOADER_DEBUG)
  unset(ENV{${variable}})
endforeach()
set(ENV{HALO_ADD_PLUGIN_FILES} ${BROKEN_DIR})

set(failures "")
# A function, not a macro: a macro would re-read the message's backslashes as
# escape sequences.
function(fail message)
  set(failures "${failures}  ${message}\n" PARENT_SCOPE)
endfunction()

# run_halo_info(<prefix> <arguments>...) sets <prefix>_rc, <prefix>_out and
# <prefix>_err.
function(run_halo_info prefix)
  execute_process(COMMAND ${HALO_INFO} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${prefix}_rc "${rc}" PARENT_SCOPE)
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# Each broken manifest: its plugin's name, the code, and a reason fragment (a
# regular expression) that the skip line must hold. bad_json's name is not
# known before its manifest is read, so it is matched by manifest.
set(expected_skips
  "bad_json.json|INVALID_ARGUMENT|JSON"
  "missing_field.json|INVALID_ARGUMENT|plugin\\.library_path"
  "bad_priority.json|INVALID_ARGUMENT|plugin\\.priority"
  "abi_major_range.json|INVALID_ARGUMENT|plugin\\.abi_version"
  "priority_range.json|INVALID_ARGUMENT|plugin\\.priority"
  "manifest_v2.json|FAILED_PRECONDITION|ABI"
  "not_so.json|UNAVAILABLE|dlopen"
  "test_no_entry.json|NOT_FOUND|halo_plugin_query"
  "test_query_null.json|FAILED_PRECONDITION|returned NULL"
  "test_descriptor_v2.json|FAILED_PRECONDITION|ABI"
  "test_name_mismatch.json|INVALID_ARGUMENT|."
  "test_create_fails.json|PERMISSION_DENIED|create_driver"
  "test_enumerate_fails.json|DATA_LOSS|enumerate_devices"
  "test_driver_no_vtable.json|INTERNAL|no vtable"
  "test_driver_wrong_type.json|INTERNAL|type tag"
  "test_driver_short_vtable.json|INTERNAL|8 bytes"
  "test_driver_no_enumerate.json|INTERNAL|enumerate_devices"
  "test_forged_status.json|INTERNAL|host interface"
  "test_dup_copy.json|ALREADY_EXISTS|duplicate"
  "test_dup_symlink.json|ALREADY_EXISTS|duplicate")

# --- Text ------------------------------------------------------------------
run_halo_info(text)
if(NOT text_rc EQUAL 0)
  fail("halo-info exited with ${text_rc}; stderr: ${text_err}")
endif()
if(EXPECT_CPU AND NOT text_out MATCHES "\n  cpu: loaded\n")
  fail("the cpu plugin is not listed as loaded")
endif()
foreach(entry IN LISTS expected_skips)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 manifest)
  list(GET parts 1 code)
  list(GET parts 2 reason)
  # A plugin's block: "  NAME: skipped: CODE: REASON" then its fields, the
  # manifest among them.
  string(REPLACE "." "\\." manifest_pattern "${manifest}")
  if(NOT text_out MATCHES
     "\n  [^\n]*: skipped: ${code}: [^\n]*${reason}[^\n]*\n(    [^\n]*\n)*    manifest: [^\n]*/${manifest_pattern}\n")
    fail("text: ${manifest} is not skipped with ${code} and '${reason}'")
  endif()
endforeach()

# --- JSON ------------------------------------------------------------------
run_halo_info(json --json)
if(NOT json_rc EQUAL 0)
  fail("halo-info --json exited with ${json_rc}; stderr: ${json_err}")
endif()
string(JSON plugin_count ERROR_VARIABLE json_error LENGTH "${json_out}" plugins)
if(json_error)
  fail("halo-info --json printed no valid document: ${json_error}")
  set(plugin_count 0)
endif()
set(json_skips "")
set(cpu_loaded OFF)
if(plugin_count GREATER 0)
  math(EXPR last "${plugin_count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json_out}" plugins ${i} name)
    string(JSON state GET "${json_out}" plugins ${i} state)
    string(JSON manifest GET "${json_out}" plugins ${i} manifest_path)
    string(JSON code GET "${json_out}" plugins ${i} skip_code)
    string(JSON reason GET "${json_out}" plugins ${i} skip_reason)
    if(name STREQUAL "cpu" AND state STREQUAL "loaded")
      set(cpu_loaded ON)
    endif()
    get_filename_component(manifest_name "${manifest}" NAME)
    # Keep the reason one list element: no separators or brackets.
    string(REGEX REPLACE "[][;|]" "_" reason "${reason}")
    list(APPEND json_skips "${manifest_name}|${state}|${code}|${reason}")
  endforeach()
endif()
if(EXPECT_CPU AND NOT cpu_loaded)
  fail("json: the cpu plugin is not loaded")
endif()
foreach(entry IN LISTS expected_skips)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 manifest)
  list(GET parts 1 code)
  list(GET parts 2 reason)
  set(found OFF)
  foreach(skip IN LISTS json_skips)
    string(REPLACE "|" ";" skip_parts "${skip}")
    list(GET skip_parts 0 skip_manifest)
    if(skip_manifest STREQUAL manifest)
      set(found ON)
      if(NOT skip MATCHES "^[^|]*\\|skipped\\|${code}\\|.*${reason}")
        fail("json: ${manifest} is '${skip}', expected skipped with ${code} and '${reason}'")
      endif()
    endif()
  endforeach()
  if(NOT found)
    fail("json: no plugin with manifest ${manifest}")
  endif()
endforeach()
if(NOT json_out MATCHES "\"drivers\"")
  fail("json: no drivers array")
endif()

# --- Debug log -------------------------------------------------------------
set(ENV{HALO_LOADER_DEBUG} debug)
run_halo_info(debug)
unset(ENV{HALO_LOADER_DEBUG})
if(NOT debug_rc EQUAL 0)
  fail("halo-info with HALO_LOADER_DEBUG=debug exited with ${debug_rc}")
endif()
if(NOT debug_err MATCHES "halo:[^\n]*test_create_fails")
  fail("HALO_LOADER_DEBUG=debug did not log the skipped test_create_fails on stderr")
endif()

if(failures)
  message(FATAL_ERROR "halo-info check failed:\n${failures}\n--- text output ---\n${text_out}")
endif()
message(STATUS "halo-info lists cpu and every broken plugin with its reason")
