#!/usr/bin/env bash
# Live lavapipe check: a fresh random corpus, filled by lavapipe (Mesa's software
# Vulkan driver), checked against the texture unit.
#
#   bash oracles/lavapipe/run-live.sh            fresh corpus, new seed (SEED=..., COUNT=... to override)
#   bash oracles/lavapipe/run-live.sh --golden   regenerate tests/golden/lavapipe_gather.json
#
# Gates: `tld4-lavapipe compare` (the agreement rules, docs/sources.md, Agreement rules: exact,
# normalized within 1 ulp, sRGB as codes; disagreements at ambiguous spots counted, any other one fails), and
# `tld4 gather --check` on the queries away from ambiguous spots, which must match exactly.
# Installs mesa-vulkan-drivers, glslang-tools and libvulkan1 when missing (Debian); exits
# non-zero with a message if that fails. About a minute on 2 cores after the build.
set -euo pipefail
cd "$(dirname "$0")/../.."

need_install=0
command -v glslangValidator >/dev/null 2>&1 || need_install=1
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || need_install=1
{ ldconfig -p 2>/dev/null || true; } | grep 'libvulkan\.so\.1' >/dev/null || need_install=1
if [ "$need_install" = 1 ]; then
  echo "run-live: installing mesa-vulkan-drivers glslang-tools libvulkan1"
  if ! { command -v apt-get >/dev/null 2>&1 \
         && apt-get update -qq \
         && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers glslang-tools libvulkan1 >/dev/null; }; then
    echo "run-live: could not install lavapipe (mesa-vulkan-drivers) and glslang-tools; the live check cannot run" >&2
    exit 1
  fi
fi

cargo build --release -p tld4-lavapipe --bin tld4-lavapipe
cargo build --release --bin tld4
harness=target/release/tld4-lavapipe
tld4=target/release/tld4
$harness devices

if [ "${1:-}" = "--golden" ]; then
  # The committed corpus: fixed seed and size (tests/lavapipe_corpus.rs regenerates the queries
  # from the seed and checks them).
  out=tests/golden/lavapipe_gather.json
  $harness generate --seed 20250605 --count 24000 target/lavapipe_golden_in.json
  $harness fill target/lavapipe_golden_in.json "$out"
  $harness compare "$out" --list 20
  exit $?
fi

dir=target/lavapipe-live
mkdir -p "$dir"
seed="${SEED:-$(( $(date +%s) ^ $$ ))}"
count="${COUNT:-5000}"
echo "run-live: seed $seed, $count queries (rerun with SEED=$seed COUNT=$count)"
start=$(date +%s)
$harness generate --seed "$seed" --count "$count" "$dir/corpus.json"
$harness fill "$dir/corpus.json" "$dir/filled.json"

status=0
$harness compare "$dir/filled.json" --list 10 || status=$?
$harness strict "$dir/filled.json" "$dir/strict.json"
$tld4 gather --check "$dir/strict.json" | tail -n 25 || status=$?
# For information: the plain check over everything (ambiguous spots and sRGB included), whose
# mismatches are the ones `compare` classified above.
echo "run-live: tld4 gather --check over the whole corpus (not a gate):"
$tld4 gather --check "$dir/filled.json" | tail -n 1 || true
echo "run-live: $(( $(date +%s) - start )) s; files in $dir"
if [ "$status" != 0 ]; then
  echo "run-live: FAILED (seed $seed): real disagreements with lavapipe, see above" >&2
  exit "$status"
fi
echo "run-live: passed (seed $seed)"
