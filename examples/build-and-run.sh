#!/usr/bin/env bash
# Builds the C and C++ examples against tld4's C ABI (capi/include/tld4.h and
# target/release/libtld4_capi.{a,so}) with the system compilers, runs them, and runs the C
# example under valgrind. Any failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release -p tld4-capi
lib=target/release
out=target/examples-capi
mkdir -p "$out"
# What a Rust static library needs from the C library.
syslibs="-lpthread -ldl -lm"

echo "== C11 example, static library"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g -Icapi/include \
  examples/c/decode_and_execute.c "$lib/libtld4_capi.a" $syslibs -o "$out/c_static"
"$out/c_static"

echo "== C11 example, shared library"
gcc -std=c11 -Wall -Wextra -Werror -pedantic -g -Icapi/include \
  examples/c/decode_and_execute.c -L"$lib" -ltld4_capi -Wl,-rpath,"$PWD/$lib" -o "$out/c_shared"
"$out/c_shared"

echo "== C++17 example (a simulator loop over a cubin's TLD4, callback register file; then the memory form)"
g++ -std=c++17 -Wall -Wextra -Werror -g -Icapi/include \
  examples/cpp/simulator.cpp "$lib/libtld4_capi.a" $syslibs -o "$out/cpp_static"
"$out/cpp_static" tests/cubins/one_gather.sm100.cubin

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
echo "== C++17 example under valgrind"
valgrind --error-exitcode=1 --leak-check=full --quiet "$out/cpp_static" tests/cubins/one_gather.sm100.cubin

echo "== examples/build-and-run.sh: all passed"
