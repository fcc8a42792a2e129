# Shared by the halo-info test scripts: a clean environment, running
# halo-info, and checks that collect every failure before reporting them.

# Unsets every variable that changes what libhalo or a native loader finds,
# so that a test sees only what it sets.
function(clear_discovery_environment)
  foreach(variable HALO_PLUGIN_FILES HALO_ADD_PLUGIN_FILES HALO_PLUGINS_SELECT
                   HALO_PLUGINS_DISABLE HALO_LOADER_DEBUG HALO_VULKAN_LIBRARY
                   HALO_OPENCL_LIBRARY VK_DRIVER_FILES VK_ICD_FILENAMES
                   VK_ADD_DRIVER_FILES VK_LOADER_DRIVERS_SELECT
                   VK_LOADER_DRIVERS_DISABLE OCL_ICD_VENDORS
                   OPENCL_VENDOR_PATH OCL_ICD_FILENAMES)
    unset(ENV{${variable}})
  endforeach()
endfunction()

# Points the Vulkan and OpenCL loaders, and so the doctor, at the empty
# folder <folder>: a test about other plugins then loads no system ICD (their
# libraries are slow to load and not under test).
function(use_empty_icd_folders folder)
  file(REMOVE_RECURSE "${folder}")
  file(MAKE_DIRECTORY "${folder}")
  set(ENV{VK_DRIVER_FILES} "${folder}")
  set(ENV{OCL_ICD_VENDORS} "${folder}")
endfunction()

# A global property, so that checks inside other functions add to the same
# list.
function(fail message)
  set_property(GLOBAL APPEND PROPERTY HALO_INFO_TEST_FAILURES "${message}")
endfunction()

# run_halo_info(<prefix> <arguments>...) sets <prefix>_out and fails the test
# unless halo-info exits with 0.
function(run_halo_info prefix)
  execute_process(COMMAND ${HALO_INFO} ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("halo-info ${ARGN} exited with ${rc}; stderr: ${err}")
  endif()
  set(${prefix}_out "${out}" PARENT_SCOPE)
endfunction()

# Fails unless |text| contains |expected| literally.
function(expect_contains text expected)
  string(FIND "${text}" "${expected}" at)
  if(at EQUAL -1)
    fail("the output lacks: ${expected}")
  endif()
endfunction()

# Fails unless the JSON value at the path given as the remaining arguments
# equals |expected| (booleans read as ON/OFF; null as "", so test nulls with
# expect_json_type).
function(expect_json json expected)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${ARGN})
  if(error)
    fail("JSON ${ARGN}: ${error}")
  elseif(NOT "${value}" STREQUAL "${expected}")
    fail("JSON ${ARGN} is '${value}', expected '${expected}'")
  endif()
endfunction()

# Fails unless the JSON value at the path given as the remaining arguments
# has |type| (NULL, NUMBER, STRING, BOOLEAN, ARRAY, OBJECT).
function(expect_json_type json type)
  string(JSON value ERROR_VARIABLE error TYPE "${json}" ${ARGN})
  if(error)
    fail("JSON ${ARGN}: ${error}")
  elseif(NOT value STREQUAL type)
    fail("JSON ${ARGN} is a ${value}, expected a ${type}")
  endif()
endfunction()

# Sets <out> to the index of the element of array <path…> whose <key> is
# <value>, or -1.
function(json_find out json key value)
  set(${out} -1 PARENT_SCOPE)
  string(JSON count ERROR_VARIABLE error LENGTH "${json}" ${ARGN})
  if(error OR count EQUAL 0)
    return()
  endif()
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON item ERROR_VARIABLE error GET "${json}" ${ARGN} ${i} ${key})
    if(NOT error AND item STREQUAL value)
      set(${out} ${i} PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# Sets <out> to the ids of the doctor's findings for plugin <name>, as a
# list; fails when the doctor does not list the plugin.
function(doctor_finding_ids out json name)
  json_find(index "${json}" name "${name}" doctor plugins)
  set(ids "")
  if(index EQUAL -1)
    fail("the doctor lists no plugin ${name}")
  else()
    string(JSON count LENGTH "${json}" doctor plugins ${index} findings)
    if(count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON id GET "${json}" doctor plugins ${index} findings ${i} id)
        list(APPEND ids ${id})
      endforeach()
    endif()
  endif()
  set(${out} "${ids}" PARENT_SCOPE)
endfunction()

# Fails unless <list> holds <item>.
function(expect_in_list list item what)
  if(NOT item IN_LIST list)
    fail("${what}: '${item}' is not among '${list}'")
  endif()
endfunction()

# Ends the test: every failure at once, with |output| to read them against.
function(finish output)
  get_property(failures GLOBAL PROPERTY HALO_INFO_TEST_FAILURES)
  if(failures)
    list(JOIN failures "\n  " text)
    message(FATAL_ERROR "failed:\n  ${text}\n--- output ---\n${output}")
  endif()
endfunction()
