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
# when the program reports no mismatch with tld4's own gather, each texture header read back
# from simulated memory decodes in the configuration's GPU class's layout (TURING_A's and
# AMPERE_B's V1), and each tld4 kernel's texture-cache accesses (the L1T accesses GPGPU-Sim
# counts) equal tld4's distinct 32-byte sectors a warp, summed over the kernel's warps.
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
# Builds test $1 for sm_$arch into $d (a fresh folder holding the configuration).
build_test() {
  d="$run_dir/$1-sm$arch${2:+-$2}"
  mkdir -p "$d"
  cp "$GPGPUSIM_ROOT/configs/tested-cfgs/$cfg/"* "$d/"
  nvcc -arch=sm_$arch -cudart shared -O2 -I"$prefix/include" -o "$d/$1" "$here/$1.cu" \
    "$prefix/lib/libtld4.a" -ldl -lpthread
}
# The tests of architecture $1 (75 or 86) on its configuration; 1 if one failed.
arch_tests() {
  local arch=$1 cfg status=0
  case $arch in 75) cfg=SM75_RTX2060 ;; 86) cfg=SM86_RTX3070 ;; esac
  # Each program is told the architecture the configuration models (its compute
  # capability): the texture headers it reads back must be in that GPU class's layout.
  for test in vecadd gather unnormalized; do
    build_test $test
    start=$(date +%s%N)
    if ! (cd "$d" && ./"$test" sm_$arch >"$d/log" 2>&1); then
      echo "FAIL $test sm_$arch (log: $d/log)"; grep -E "^(FAIL|  )|ERROR" "$d/log" | head -20; status=1; continue
    fi
    secs=$(( ($(date +%s%N) - start) / 1000000 ))
    grep -E "^GPGPU-Sim tld4: texture headers" "$d/log" | head -1 | sed "s/^/  sm_$arch /" || true
    grep -E "^(PASS|FAIL) " "$d/log" | sed "s/^/  sm_$arch /" || true
    if [ "$test" = gather ]; then
      python3 "$here/check_sectors.py" "$d/log" || status=1
    fi
    echo "PASS $test sm_$arch ($secs ms simulated run)"
  done
  # The depth-reference operand: with a depth-compare sampler and a D32_FLOAT view written
  # into the pools, values equal to tld4's; with CUDA's own sampler (compare off), the
  # simulator stops at the tld4 with tld4's own reason for the same form.
  build_test depth values
  if (cd "$d" && ./depth sm_$arch values >"$d/log" 2>&1); then
    grep -E "^(PASS|FAIL) " "$d/log" | sed "s/^/  sm_$arch /" || true
    echo "PASS depth sm_$arch (values)"
  else
    echo "FAIL depth sm_$arch values (log: $d/log)"; grep -E "^(FAIL|  )|ERROR" "$d/log" | head -20; status=1
  fi
  build_test depth off
  (cd "$d" && ./depth sm_$arch off >"$d/log" 2>&1) || true
  verdict="$(sed -n 's/^TLD4_VERDICT \S* not_modeled: //p' "$d/log" | head -1)"
  reason="${verdict##*: }"
  if [ -n "$reason" ] && grep -F "not modeled by tld4: " "$d/log" | grep -qF "$reason"; then
    echo "PASS depth sm_$arch (compare off): $(grep -o 'ERROR tld4 at .*' "$d/log" | head -1 | cut -c1-200)"
  else
    echo "FAIL depth sm_$arch off (log: $d/log): tld4's verdict '${verdict}'"; grep -E "TLD4_VERDICT|ERROR" "$d/log" | head -5; status=1
  fi
  return $status
}
# Other GPU classes: SM86_RTX3070 with its compute capability set to 9.0 (HOPPER_A) and 12.0
# (BLACKWELL_B), both V2 headers, runs unnormalized.cu (its checks read the headers back in
# that class's layout); 7.0 (GPGPU-Sim's default, Volta, whose layouts tld4 has not restated)
# must make cudaCreateTextureObject fail, saying why. 1 if one failed.
class_tests() {
  local arch=86 cfg=SM86_RTX3070 status=0
  for cc in 90 120 70; do
    build_test unnormalized cc$cc
    printf -- '-gpgpu_compute_capability_major %s\n-gpgpu_compute_capability_minor %s\n' \
      "${cc%?}" "${cc: -1}" >>"$d/gpgpusim.config"
    if [ $cc = 70 ]; then
      (cd "$d" && ./unnormalized sm_75 >"$d/log" 2>&1) || true
      if grep -q "cudaCreateTextureObject: not modeled: the configuration's compute capability 7.0" "$d/log"; then
        echo "PASS compute capability 7.0 refused: $(grep -o 'GPGPU-Sim tld4: cudaCreateTextureObject.*' "$d/log" | head -1 | cut -c1-200)"
      else
        echo "FAIL compute capability 7.0 (log: $d/log)"; status=1
      fi
    elif (cd "$d" && ./unnormalized sm_$cc >"$d/log" 2>&1); then
      grep -E "^GPGPU-Sim tld4: texture headers" "$d/log" | head -1 | sed "s/^/  cc $cc /" || true
      echo "PASS unnormalized on compute capability ${cc%?}.${cc: -1} ($(grep -c '^PASS descriptors' "$d/log") headers read back, $(grep -c '^PASS unnormalized_' "$d/log") cases equal)"
    else
      echo "FAIL unnormalized on compute capability $cc (log: $d/log)"; grep -E "^FAIL|ERROR" "$d/log" | head -5; status=1
    fi
  done
  return $status
}
# The three groups side by side (each simulation runs on one CPU), their output in order (a
# group stops at its first error, as the script did before: its status is then not 0).
groups=("arch_tests 75" "arch_tests 86" class_tests)
pids=()
for group in "${groups[@]}"; do
  $group >"$run_dir/${group// /-}.out" 2>&1 &
  pids+=($!)
done
for k in "${!groups[@]}"; do
  wait "${pids[$k]}" || status=1
  cat "$run_dir/${groups[$k]// /-}.out"
done
exit $status
