# halo_write_future_abi_headers(<include folder>)
#
# Writes <include folder>/halo/*.h: the public headers as the first ABI 1.1
# will look, so that 1.0 and 1.1 builds can be mixed before there is a 1.1.
# abi.h says 1.1, and every struct marked "ABI 1.0 ends here" gets one
# 8-byte member appended after the marker: each sizeof grows, every 1.0
# member stays where it is. halo_allocator_t is left alone, as the first
# append will leave it: it is embedded in halo_host_interface_t, so growing
# it would move the members after it.
function(halo_write_future_abi_headers include_dir)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/abi/include/halo/*.h)
  set(marker "  /* --- ABI 1.0 ends here. --- */\n")
  set(appended_member "  uint64_t future_1_1_member;\n  /* --- ABI 1.1 ends here. --- */\n")
  set(appended 0)
  foreach(header IN LISTS headers)
    get_filename_component(name ${header} NAME)
    file(READ ${header} content)
    set(future "${content}")
    if(name STREQUAL "abi.h")
      string(REPLACE "#define HALO_ABI_VERSION_MINOR 0\n"
                     "#define HALO_ABI_VERSION_MINOR 1\n" future "${content}")
      if(future STREQUAL content)
        message(FATAL_ERROR "abi.h does not define HALO_ABI_VERSION_MINOR 0")
      endif()
    elseif(NOT name STREQUAL "allocator.h")
      string(REGEX MATCHALL "ABI 1\\.0 ends here" markers "${content}")
      list(LENGTH markers count)
      math(EXPR appended "${appended} + ${count}")
      string(REPLACE "${marker}" "${marker}${appended_member}" future "${content}")
    endif()
    # Re-configures when the header changes; rewritten only when the result
    # changes, so that re-configuring rebuilds nothing.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${header})
    set(output ${include_dir}/halo/${name})
    set(previous "")
    if(EXISTS ${output})
      file(READ ${output} previous)
    endif()
    if(NOT previous STREQUAL future)
      file(WRITE ${output} "${future}")
    endif()
  endforeach()
  if(appended EQUAL 0)
    message(FATAL_ERROR "no struct of abi/include/halo is marked \"ABI 1.0 ends here\"")
  endif()
endfunction()
