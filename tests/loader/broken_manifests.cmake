# Writes the manifests and files that are broken without any code: included by
# tests/loader/CMakeLists.txt with HALO_TEST_BROKEN_DIR and HALO_TEST_GOOD_DIR
# set. Each manifest names a plugin "test_<what>" so that the tests and
# halo-info's output can find it by name or by file.

# halo_test_manifest(<file> <name> <library_path> <abi_version>)
# Writes a well-formed manifest <file> in the broken folder.
function(halo_test_manifest file name library_path abi_version)
  file(WRITE ${HALO_TEST_BROKEN_DIR}/${file}
"{
  \"file_format_version\": \"1.0.0\",
  \"plugin\": {
    \"name\": \"${name}\",
    \"library_path\": \"${library_path}\",
    \"abi_version\": \"${abi_version}\",
    \"priority\": 0
  }
}
")
endfunction()

# Not JSON at all: the object is never closed.
file(WRITE ${HALO_TEST_BROKEN_DIR}/bad_json.json
"{
  \"file_format_version\": \"1.0.0\",
  \"plugin\": {
    \"name\": \"test_bad_json\",
")

# Valid JSON without plugin.library_path.
file(WRITE ${HALO_TEST_BROKEN_DIR}/missing_field.json
"{
  \"file_format_version\": \"1.0.0\",
  \"plugin\": {
    \"name\": \"test_missing_field\",
    \"abi_version\": \"1.0\",
    \"priority\": 0
  }
}
")

# Valid JSON with plugin.priority of the wrong type. Its library is a text file,
# so getting as far as dlopen would show as UNAVAILABLE instead.
file(WRITE ${HALO_TEST_BROKEN_DIR}/bad_priority.json
"{
  \"file_format_version\": \"1.0.0\",
  \"plugin\": {
    \"name\": \"test_bad_priority\",
    \"library_path\": \"not_a_library_priority.so\",
    \"abi_version\": \"1.0\",
    \"priority\": \"high\"
  }
}
")

# Numbers past their fields: an ABI major of 65537 would wrap to 1 in the
# 16 bits it packs into, and a priority of 2^32 + 1 to 1 in an int32. Their
# libraries are text files, so a manifest accepted by mistake shows as
# UNAVAILABLE (dlopen) instead of INVALID_ARGUMENT.
halo_test_manifest(abi_major_range.json test_abi_major_range
                   not_a_library_abi_range.so 65537.0)
file(WRITE ${HALO_TEST_BROKEN_DIR}/priority_range.json
"{
  \"file_format_version\": \"1.0.0\",
  \"plugin\": {
    \"name\": \"test_priority_range\",
    \"library_path\": \"not_a_library_priority.so\",
    \"abi_version\": \"1.0\",
    \"priority\": 4294967297
  }
}
")

# Text files named like libraries. Long enough that dlopen reads a whole ELF
# header's worth of bytes and reports "invalid ELF header", not "file too short".
set(not_a_library_text
"This is a text file named like a shared object. The halo loader tests use it
to check that a failed dlopen skips the plugin with dlerror's reason.
")
file(WRITE ${HALO_TEST_BROKEN_DIR}/not_a_library.so "${not_a_library_text}")
file(WRITE ${HALO_TEST_BROKEN_DIR}/not_a_library_v2.so "${not_a_library_text}")
file(WRITE ${HALO_TEST_BROKEN_DIR}/not_a_library_priority.so "${not_a_library_text}")
file(WRITE ${HALO_TEST_BROKEN_DIR}/not_a_library_abi_range.so "${not_a_library_text}")
halo_test_manifest(not_so.json test_not_so not_a_library.so 1.0)

# A manifest of another major version. Its library is not a library at all, so
# a refusal with UNAVAILABLE would show that the loader called dlopen before
# reading the manifest's version.
halo_test_manifest(manifest_v2.json test_manifest_v2 not_a_library_v2.so 2.0)

# Duplicates of test_dup: a second manifest naming the same library, and a
# manifest naming a symbolic link to it. Both sort after test_dup.json.
halo_test_manifest(test_dup_copy.json test_dup libhalo_plugin_test_dup.so 1.0)
file(CREATE_LINK libhalo_plugin_test_dup.so
     ${HALO_TEST_BROKEN_DIR}/libhalo_plugin_test_dup_link.so SYMBOLIC)
halo_test_manifest(test_dup_symlink.json test_dup libhalo_plugin_test_dup_link.so 1.0)

# The XDG data folder: halo/plugins.d holds one manifest for test_alpha of the
# good folder, named by a path relative to the manifest.
file(RELATIVE_PATH xdg_to_alpha ${HALO_TEST_XDG_DIR}/halo/plugins.d
     ${HALO_TEST_GOOD_DIR}/libhalo_plugin_test_alpha.so)
file(WRITE ${HALO_TEST_XDG_DIR}/halo/plugins.d/test_alpha.json
"{
  \"file_format_version\": \"1.0.0\",
  \"plugin\": {
    \"name\": \"test_alpha\",
    \"library_path\": \"${xdg_to_alpha}\",
    \"abi_version\": \"1.0\",
    \"priority\": 5
  }
}
")
