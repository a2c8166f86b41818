#!/usr/bin/env bash
# Builds the C and C++ examples against tld4's C ABI (capi/include/tld4.h and
# target/release/libtld4_capi.{a,so}) with the system compilers, runs them, runs them under
# valgrind, and runs them built with AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc's -fsanitize=address,undefined): the C examples against the debug library, whose
# overflow checks are on (an overflow in tld4 is then a caught panic, TLD4_ERR_PANIC, which
# the examples treat as a failure), the C++ one against the installed (release) library. It also installs the library under target/examples-capi/prefix with
# capi/install.sh and builds examples/cpp (the toy SM) only through its CMake package
# (static, shared, and with the sanitizers), and examples/c/decode_and_execute.c through
# pkg-config, as an adopting project would.
# Any failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

tgt="${CARGO_TARGET_DIR:-target}"
cargo build --release -p tld4-capi
lib="$tgt/release"
out="$tgt/examples-capi"
mkdir -p "$out"
# What a Rust static library needs from the C library.
syslibs="-lpthread -ldl -lm"

echo "== C11 example, static library"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g -Icapi/include \
  examples/c/decode_and_execute.c "$lib/libtld4_capi.a" $syslibs -o "$out/c_static"
"$out/c_static"

echo "== C11 hostile arguments (typed statuses, never a panic), static library"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g -Icapi/include \
  examples/c/bad_input.c "$lib/libtld4_capi.a" $syslibs -o "$out/c_bad_input"
"$out/c_bad_input"

echo "== C11 driver: its own memory image, pools from the encoders, bound, a batch of warps"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g -Icapi/include \
  examples/c/driver_memory.c "$lib/libtld4_capi.a" $syslibs -o "$out/c_driver_memory"
"$out/c_driver_memory"

echo "== C11 example, shared library"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g -Icapi/include \
  examples/c/decode_and_execute.c -L"$lib" -ltld4_capi -Wl,-rpath,"$(cd "$lib" && pwd)" -o "$out/c_shared"
"$out/c_shared"

echo "== installed library (capi/install.sh): the C++ toy SM through find_package(tld4), C through pkg-config"
if ! command -v cmake >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq cmake
  else
    echo "cmake is not installed (apt-get install cmake)" >&2
    exit 1
  fi
fi
prefix="$out/prefix"
rm -rf "$prefix"
bash capi/install.sh "$prefix"
prefix="$(cd "$prefix" && pwd)"
for link in tld4_static tld4; do
  rm -rf "$out/cmake-$link"
  cmake -S examples/cpp -B "$out/cmake-$link" -DCMAKE_PREFIX_PATH="$prefix" \
    -DTLD4_LINK="tld4::$link" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$out/cmake-$link" >/dev/null
  "$out/cmake-$link/simulator" tests/cubins/one_gather.sm100.cubin
done
# The static build needs no tld4 at run time; the shared one loads the installed library
# (found by its soname through CMake's rpath).
if ldd "$out/cmake-tld4_static/simulator" | grep -F libtld4; then exit 1; fi
ldd "$out/cmake-tld4/simulator" | grep -F "libtld4_capi.so => $prefix/lib/libtld4_capi.so"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# shellcheck disable=SC2046 # pkg-config's flags are meant to split into words
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g examples/c/decode_and_execute.c \
  $(pkg-config --cflags --libs tld4) -Wl,-rpath,"$(pkg-config --variable=libdir tld4)" \
  -o "$out/c_pkgconfig"
ldd "$out/c_pkgconfig" | grep -F "libtld4_capi.so => $prefix/lib/libtld4_capi.so"
"$out/c_pkgconfig"

echo "== C11 example under valgrind"
if ! command -v valgrind >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq valgrind
  else
    echo "valgrind is not installed (apt-get install valgrind)" >&2
    exit 1
  fi
fi
valgrind --error-exitcode=1 --leak-check=full --quiet "$out/c_static"
valgrind --error-exitcode=1 --leak-check=full --quiet "$out/c_driver_memory"
echo "== C++17 toy SM (built through find_package) under valgrind"
valgrind --error-exitcode=1 --leak-check=full --quiet "$out/cmake-tld4_static/simulator" \
  tests/cubins/one_gather.sm100.cubin

echo "== under AddressSanitizer + UBSan: the C11 examples against the checked debug library, the C++17 toy SM through its CMake package"
cargo build -p tld4-capi
dbg="$tgt/debug"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g $san -Icapi/include \
  examples/c/decode_and_execute.c "$dbg/libtld4_capi.a" $syslibs -o "$out/c_asan"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g $san -Icapi/include \
  examples/c/bad_input.c "$dbg/libtld4_capi.a" $syslibs -o "$out/c_bad_input_asan"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g $san -Icapi/include \
  examples/c/driver_memory.c "$dbg/libtld4_capi.a" $syslibs -o "$out/c_driver_memory_asan"
# the toy SM through its CMake package, instrumented (the installed release library)
rm -rf "$out/cmake-asan"
cmake -S examples/cpp -B "$out/cmake-asan" -DCMAKE_PREFIX_PATH="$prefix" \
  -DTLD4_LINK=tld4::tld4_static -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$out/cmake-asan" >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$out/c_asan"
"$out/c_bad_input_asan"
"$out/c_driver_memory_asan"
"$out/cmake-asan/simulator" tests/cubins/one_gather.sm100.cubin

echo "== examples/build-and-run.sh: all passed"
