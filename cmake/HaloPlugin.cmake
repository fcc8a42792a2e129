# halo_add_plugin(NAME <name> SOURCES <src>... [PRIORITY <n>] [ABI_VERSION <M.m>]
#                 [OUTPUT_DIR <dir>] [MANIFEST_DIR <dir>] [NO_INSTALL] [NO_MANIFEST])
#
# Builds libhalo_plugin_<name>.so as a MODULE with hidden visibility that
# exports only halo_plugin_query, and writes its JSON manifest. Used in this
# tree and, through find_package(halo), by plugins built outside it.
set(_HALO_PLUGIN_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

function(halo_add_plugin)
  cmake_parse_arguments(P "NO_INSTALL;NO_MANIFEST" "NAME;PRIORITY;ABI_VERSION;OUTPUT_DIR;MANIFEST_DIR" "SOURCES" ${ARGN})
  if(NOT P_NAME)
    message(FATAL_ERROR "halo_add_plugin: NAME is required")
  endif()
  if(NOT DEFINED P_PRIORITY)
    set(P_PRIORITY 0)
  endif()
  if(NOT P_ABI_VERSION)
    # The manifest declares what the plugin is compiled against: the
    # headers' version where halo's build or package says it.
    if(DEFINED HALO_ABI_VERSION_MAJOR AND DEFINED HALO_ABI_VERSION_MINOR)
      set(P_ABI_VERSION "${HALO_ABI_VERSION_MAJOR}.${HALO_ABI_VERSION_MINOR}")
    else()
      set(P_ABI_VERSION "1.0")
    endif()
  endif()
  if(NOT P_OUTPUT_DIR)
    if(DEFINED HALO_BUILD_PLUGIN_DIR)
      set(P_OUTPUT_DIR ${HALO_BUILD_PLUGIN_DIR})
    else()
      set(P_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  if(NOT P_MANIFEST_DIR)
    if(DEFINED HALO_BUILD_MANIFEST_DIR)
      set(P_MANIFEST_DIR ${HALO_BUILD_MANIFEST_DIR})
    else()
      set(P_MANIFEST_DIR ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  set(target halo_plugin_${P_NAME})
  add_library(${target} MODULE ${P_SOURCES})
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME halo_plugin_${P_NAME}
    LIBRARY_OUTPUT_DIRECTORY ${P_OUTPUT_DIR}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE
    "LINKER:--version-script=${_HALO_PLUGIN_CMAKE_DIR}/halo_plugin_exports.map"
    "LINKER:--no-undefined")
  if(TARGET halo::abi)
    target_link_libraries(${target} PRIVATE halo::abi)
  else()
    target_link_libraries(${target} PRIVATE halo_abi)
  endif()
  if(NOT P_NO_MANIFEST)
    set(HALO_PLUGIN_NAME ${P_NAME})
    set(HALO_PLUGIN_PRIORITY ${P_PRIORITY})
    set(HALO_PLUGIN_ABI_VERSION ${P_ABI_VERSION})
    file(RELATIVE_PATH HALO_PLUGIN_LIBRARY_PATH ${P_MANIFEST_DIR}
         ${P_OUTPUT_DIR}/libhalo_plugin_${P_NAME}.so)
    configure_file(${_HALO_PLUGIN_CMAKE_DIR}/halo_plugin_manifest.json.in
                   ${P_MANIFEST_DIR}/${P_NAME}.json @ONLY)
  endif()
  if(NOT P_NO_INSTALL AND DEFINED HALO_INSTALL_PLUGIN_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${HALO_INSTALL_PLUGIN_DIR})
    file(RELATIVE_PATH HALO_PLUGIN_LIBRARY_PATH
         /prefix/${HALO_INSTALL_MANIFEST_DIR}
         /prefix/${HALO_INSTALL_PLUGIN_DIR}/libhalo_plugin_${P_NAME}.so)
    set(installed ${CMAKE_CURRENT_BINARY_DIR}/install-manifest/${P_NAME}.json)
    configure_file(${_HALO_PLUGIN_CMAKE_DIR}/halo_plugin_manifest.json.in ${installed} @ONLY)
    install(FILES ${installed} DESTINATION ${HALO_INSTALL_MANIFEST_DIR})
  endif()
endfunction()
