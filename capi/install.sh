#!/usr/bin/env bash
# Installs tld4's C library under a prefix, the way a C or C++ project expects to find one:
#
#   bash capi/install.sh PREFIX
#
# builds `cargo build --release -p tld4-capi` (into $CARGO_TARGET_DIR when set, else the
# workspace's target/) and installs
#
#   PREFIX/include/tld4.h
#   PREFIX/lib/libtld4_capi.so              the shared library (its soname, set by capi/build.rs)
#   PREFIX/lib/libtld4.so -> libtld4_capi.so  the name `-ltld4` links against
#   PREFIX/lib/libtld4.a                    the static library, debug information stripped
#   PREFIX/lib/pkgconfig/tld4.pc            `pkg-config --cflags --libs tld4`
#   PREFIX/lib/cmake/tld4/tld4Config.cmake  `find_package(tld4)`: tld4::tld4 (shared),
#   PREFIX/lib/cmake/tld4/tld4ConfigVersion.cmake   tld4::tld4_static (static)
#
# The version is the header's TLD4_VERSION_* (capi/tests/header.rs and the version test keep
# them equal to the crate's). Linux only (an ELF shared library and GNU strip); cargo-c's
# `cargo cinstall` is the general tool, this script needs nothing beyond cargo and binutils.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: bash capi/install.sh PREFIX" >&2
  exit 2
fi
mkdir -p "$1"
prefix="$(cd "$1" && pwd)"
root="$(cd "$(dirname "$0")/.." && pwd)"

# CARGO_TARGET_DIR is read as cargo reads it: relative to the directory cargo runs in (here).
cargo build --release -p tld4-capi --manifest-path "$root/Cargo.toml"
tgt="${CARGO_TARGET_DIR:-$root/target}"
lib="$tgt/release"

header="$root/capi/include/tld4.h"
version_part() { sed -n "s/^#define TLD4_VERSION_$1 \([0-9][0-9]*\)$/\1/p" "$header"; }
major="$(version_part MAJOR)"
minor="$(version_part MINOR)"
patch="$(version_part PATCH)"
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
  echo "capi/install.sh: no TLD4_VERSION_MAJOR/MINOR/PATCH in $header" >&2
  exit 1
fi
version="$major.$minor.$patch"

install -d "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/tld4"
install -m 644 "$header" "$prefix/include/tld4.h"
install -m 755 "$lib/libtld4_capi.so" "$prefix/lib/libtld4_capi.so"
ln -sfn libtld4_capi.so "$prefix/lib/libtld4.so"
# The release static library carries debug information for the Rust standard library and
# every crate in it; a C user's debugger does not need it. Symbols needed to link stay.
install -m 644 "$lib/libtld4_capi.a" "$prefix/lib/libtld4.a"
strip --strip-debug "$prefix/lib/libtld4.a"
size_of() { stat -c %s "$1"; }
echo "libtld4.a: $(size_of "$lib/libtld4_capi.a") bytes as built," \
  "$(size_of "$prefix/lib/libtld4.a") bytes installed (strip --strip-debug)"

# What a Rust static library needs from the C library: threads, dl, libm.
cat >"$prefix/lib/pkgconfig/tld4.pc" <<EOF
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: tld4
Description: Bit-accurate emulator of NVIDIA's SASS TLD4 (texture gather), C ABI
Version: $version
Libs: -L\${libdir} -ltld4
Libs.private: -lpthread -ldl -lm
Cflags: -I\${includedir}
EOF

# The CMake package finds the prefix from its own place, so the tree can be moved.
cat >"$prefix/lib/cmake/tld4/tld4Config.cmake" <<'EOF'
# CMake package for tld4's C library, written by capi/install.sh.
#   find_package(tld4 REQUIRED)
#   target_link_libraries(app PRIVATE tld4::tld4)         # shared: libtld4.so
#   target_link_libraries(app PRIVATE tld4::tld4_static)  # static: libtld4.a, threads, dl, m
include(CMakeFindDependencyMacro)
find_dependency(Threads)

get_filename_component(_tld4_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET tld4::tld4)
  add_library(tld4::tld4 SHARED IMPORTED)
  set_target_properties(tld4::tld4 PROPERTIES
    IMPORTED_LOCATION "${_tld4_prefix}/lib/libtld4_capi.so"
    IMPORTED_SONAME "libtld4_capi.so"
    INTERFACE_INCLUDE_DIRECTORIES "${_tld4_prefix}/include")
endif()

if(NOT TARGET tld4::tld4_static)
  add_library(tld4::tld4_static STATIC IMPORTED)
  set_target_properties(tld4::tld4_static PROPERTIES
    IMPORTED_LOCATION "${_tld4_prefix}/lib/libtld4.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "${_tld4_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")
endif()

set(tld4_INCLUDE_DIR "${_tld4_prefix}/include")
unset(_tld4_prefix)
EOF

# Compatibility: the same major version at least as new as asked for; before 1.0 the same
# minor version too (0.x releases may change the ABI, as Cargo's semver rules allow).
cat >"$prefix/lib/cmake/tld4/tld4ConfigVersion.cmake" <<EOF
# Version of the tld4 CMake package, written by capi/install.sh.
set(PACKAGE_VERSION "$version")
set(_tld4_major $major)
set(_tld4_minor $minor)
EOF
cat >>"$prefix/lib/cmake/tld4/tld4ConfigVersion.cmake" <<'EOF'
if(NOT DEFINED PACKAGE_FIND_VERSION OR "${PACKAGE_FIND_VERSION}" STREQUAL "")
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT PACKAGE_FIND_VERSION_MAJOR EQUAL _tld4_major)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(_tld4_major EQUAL 0 AND PACKAGE_FIND_VERSION_COUNT GREATER 1 AND
       NOT PACKAGE_FIND_VERSION_MINOR EQUAL _tld4_minor)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
# A 64-bit library: refuse a 32-bit project.
if(CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(PACKAGE_VERSION "${PACKAGE_VERSION} (64bit)")
  set(PACKAGE_VERSION_UNSUITABLE TRUE)
endif()
unset(_tld4_major)
unset(_tld4_minor)
EOF

echo "tld4 $version installed under $prefix"
