#!/usr/bin/env bash
# Runs the gather tests on GPGPU-Sim with tld4 as its texture unit:
#
#   bash integrations/gpgpu-sim/tests/run.sh [SRC]
#
# builds the simulator with ../build.sh (SRC as there, or $GPGPUSIM_SRC; default: the vendored
# tarball shared/vendor/gpgpu-sim_distribution-667834c.tar.gz one or two levels above the
# repository, if present, else a clone of the pinned commit),
# cached under target/gpgpu-sim-tld4/cache/KEY, KEY a hash of the patches, build.sh and
# tld4's installed C library; then builds each test program with nvcc 13 for sm_75 and
# sm_86 and runs it on the SM75_RTX2060 and SM86_RTX3070 configurations. A test passes
# when the program reports no mismatch with tld4's own gather and each tld4 kernel's
# texture-cache accesses (the L1T accesses GPGPU-Sim counts) equal tld4's distinct 32-byte
# sectors a warp, summed over the kernel's warps.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
int="$(cd "$here/.." && pwd)"
root="$(cd "$int/../.." && pwd)"
out="$root/target/gpgpu-sim-tld4"
src="${1:-${GPGPUSIM_SRC:-}}"
if [ -z "$src" ]; then
  # the vendored source: a folder shared/vendor beside the clone (or one level further up)
  for up in "$root/.." "$root/../.."; do
    if [ -f "$up/shared/vendor/gpgpu-sim_distribution-667834c.tar.gz" ]; then
      src="$up/shared/vendor/gpgpu-sim_distribution-667834c.tar.gz"
      break
    fi
  done
fi
prefix="${TLD4_PREFIX:-$out/tld4}"
if [ ! -f "$prefix/lib/libtld4.a" ]; then
  bash "$root/capi/install.sh" "$prefix" >/dev/null
fi
key="$(cat "$int"/patches/*.patch "$int/build.sh" "$prefix/lib/libtld4.a" "$prefix/include/tld4.h" | sha256sum | cut -c1-16)"
cache="$out/cache/$key"
if [ ! -f "$cache/env.sh" ]; then
  start=$(date +%s)
  GPGPUSIM_OUT="$cache" GPGPUSIM_WORK="$cache/src" TLD4_PREFIX="$prefix" \
    CUDA_VENV="$out/cuda13-venv" bash "$int/build.sh" $src
  echo "gpgpu-sim: simulator built in $(( $(date +%s) - start )) s (cached as $cache)"
else
  echo "gpgpu-sim: cached simulator $cache"
fi
# GPGPU-Sim's setup_environment is not written for set -euo pipefail
set +euo pipefail
# shellcheck disable=SC1091
source "$cache/env.sh"
set -euo pipefail
run_dir="$out/run"
rm -rf "$run_dir"
mkdir -p "$run_dir"
status=0
for arch in 75 86; do
  case $arch in 75) cfg=SM75_RTX2060 ;; 86) cfg=SM86_RTX3070 ;; esac
  for test in vecadd gather; do
    d="$run_dir/$test-sm$arch"
    mkdir -p "$d"
    cp "$GPGPUSIM_ROOT/configs/tested-cfgs/$cfg/"* "$d/"
    nvcc -arch=sm_$arch -cudart shared -O2 -I"$prefix/include" -o "$d/$test" "$here/$test.cu" \
      "$prefix/lib/libtld4.a" -ldl -lpthread
    start=$(date +%s%N)
    if ! (cd "$d" && ./"$test" >"$d/log" 2>&1); then
      echo "FAIL $test sm_$arch (log: $d/log)"; grep -E "^(FAIL|  )|ERROR" "$d/log" | head -20; status=1; continue
    fi
    secs=$(( ($(date +%s%N) - start) / 1000000 ))
    grep -E "^(PASS|FAIL) " "$d/log" | sed "s/^/  sm_$arch /" || true
    if [ "$test" = gather ]; then
      python3 "$here/check_sectors.py" "$d/log" || status=1
    fi
    echo "PASS $test sm_$arch ($secs ms simulated run)"
  done
  # Unnormalized coordinates: values equal to tld4's where tld4 models them; with an older
  # tld4 (no normalized_coords in tld4.h) a clear "not modeled" error naming the tld4.
  d="$run_dir/unnormalized-sm$arch"
  mkdir -p "$d"
  cp "$GPGPUSIM_ROOT/configs/tested-cfgs/$cfg/"* "$d/"
  nvcc -arch=sm_$arch -cudart shared -O2 -I"$prefix/include" -o "$d/unnormalized" \
    "$here/unnormalized.cu" "$prefix/lib/libtld4.a" -ldl -lpthread
  (cd "$d" && ./unnormalized >"$d/log" 2>&1) || true
  if grep -q '^PASS unnormalized' "$d/log"; then
    echo "PASS unnormalized sm_$arch: $(grep '^PASS unnormalized' "$d/log")"
  elif ! grep -q 'normalized_coords' "$prefix/include/tld4.h" &&
    grep -q 'ERROR tld4 at .*tld4.g.2d.v4.f32.f32.*not modeled by tld4' "$d/log"; then
    echo "PASS unnormalized sm_$arch (tld4 without unnormalized coordinates): $(grep -o 'ERROR tld4 at .*' "$d/log" | head -1 | cut -c1-160)"
  else
    echo "FAIL unnormalized sm_$arch (log: $d/log)"; grep -E '^(FAIL|unnormalized)|ERROR' "$d/log" | head -5; status=1
  fi
done
exit $status
