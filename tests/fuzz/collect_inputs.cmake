# Copies the files that exist among GLOBS (a ;-list of paths or globs) into
# DESTINATION, emptied first: the build's own inputs for a harness (built
# kernels, inputs that other parts of the tree may or may not ship yet).
#   cmake -DDESTINATION=dir "-DGLOBS=a;b/*.x" -P collect_inputs.cmake
file(REMOVE_RECURSE ${DESTINATION})
file(MAKE_DIRECTORY ${DESTINATION})
foreach(pattern IN LISTS GLOBS)
  file(GLOB matches ${pattern})
  foreach(match IN LISTS matches)
    if(NOT IS_DIRECTORY ${match})
      file(COPY ${match} DESTINATION ${DESTINATION})
    endif()
  endforeach()
endforeach()
