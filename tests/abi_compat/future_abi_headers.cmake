# halo_write_future_abi_headers(<include folder> <out-variable>)
#
# Writes <include folder>/halo/*.h: the public headers as the next ABI minor
# will look, so that builds of today's minor and the next can be mixed before
# the next exists. abi.h says today's minor plus one (stored in
# <out-variable>), and every struct gets one 8-byte member appended after the
# marker that ends it ("ABI 1.M ends here"), followed by the next minor's
# marker: each sizeof grows, every older member stays where it is.
# halo_allocator_t is left alone, as every append leaves it: it is embedded
# in halo_host_interface_t, so growing it would move the members after it.
function(halo_write_future_abi_headers include_dir out_minor)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/abi/include/halo/*.h)
  file(READ ${PROJECT_SOURCE_DIR}/abi/include/halo/abi.h abi_header)
  if(NOT abi_header MATCHES "\n#define HALO_ABI_VERSION_MINOR ([0-9]+)\n")
    message(FATAL_ERROR "abi.h does not define HALO_ABI_VERSION_MINOR")
  endif()
  set(minor ${CMAKE_MATCH_1})
  math(EXPR next "${minor} + 1")
  # A marker that ends a struct: the struct's closing brace follows it.
  set(last_marker "(  /\\* --- ABI 1\\.[0-9]+ ends here\\. --- \\*/\n)}")
  set(appended_member
      "  uint64_t future_1_${next}_member;\n  /* --- ABI 1.${next} ends here. --- */\n")
  set(appended 0)
  foreach(header IN LISTS headers)
    get_filename_component(name ${header} NAME)
    file(READ ${header} content)
    set(future "${content}")
    if(name STREQUAL "abi.h")
      string(REPLACE "#define HALO_ABI_VERSION_MINOR ${minor}\n"
                     "#define HALO_ABI_VERSION_MINOR ${next}\n" future "${content}")
    elseif(NOT name STREQUAL "allocator.h")
      string(REGEX MATCHALL "${last_marker}" markers "${content}")
      list(LENGTH markers count)
      math(EXPR appended "${appended} + ${count}")
      string(REGEX REPLACE "${last_marker}" "\\1${appended_member}}" future
             "${content}")
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
    message(FATAL_ERROR "no struct of abi/include/halo ends with an \"ABI 1.M ends here\" marker")
  endif()
  set(${out_minor} ${next} PARENT_SCOPE)
endfunction()
