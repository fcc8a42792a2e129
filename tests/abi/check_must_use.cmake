# Proves that the headers make a dropped halo_status_t a compile-time
# diagnostic (HALO_MUST_USE, abi.h) for C and C++ alike: must_use_status.c
# compiles under -Werror as it is, and fails, naming the unused result, when
# it drops a status. The clean compile shows the failure is the dropped
# status and nothing else.
#
# -c, not -fsyntax-only: GCC warns about unused results only once it
# lowers the code, which -fsyntax-only skips.
#
# Variables: C_COMPILER, CXX_COMPILER, INCLUDE_DIR, SOURCE.
foreach(language C CXX)
  if(language STREQUAL "C")
    set(compiler ${C_COMPILER})
    set(language_flags -x c -std=c11)
  else()
    set(compiler ${CXX_COMPILER})
    set(language_flags -x c++ -std=c++20)
  endif()
  set(command ${compiler} ${language_flags} -c -o /dev/null -Wall -Werror
              -I${INCLUDE_DIR} ${SOURCE})
  execute_process(COMMAND ${command} RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${language}: the status-using source does not compile:\n${output}")
  endif()
  execute_process(COMMAND ${command} -DHALO_IGNORE_STATUS
                  RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result EQUAL 0)
    message(FATAL_ERROR "${language}: dropping a halo_status_t compiled without a diagnostic")
  endif()
  if(NOT output MATCHES "unused-result|unused_result|warn_unused_result")
    message(FATAL_ERROR "${language}: dropping a status failed, but not for the unused result:\n${output}")
  endif()
  message(STATUS "${language}: a dropped halo_status_t is diagnosed")
endforeach()
