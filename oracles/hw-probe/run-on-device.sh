#!/usr/bin/env bash
# The whole hardware run, one command, on any machine with an NVIDIA GPU from SM75 (Turing) to
# SM121 and its driver. Writes everything under $OUT (default: ./hw-probe-out):
#   hw_results.json            every query and result, with the GPU, driver and date
#   phases/*.json              the same, one file per phase (each phase ran in its own process)
#   kernels/*.cubin            the cubin the driver's JIT compiler made of the portable PTX
#                              (and the ptxas one, when ptxas was used)
#   hw_<arch>_<gpu>.json       the golden data (copy to tests/golden/)
#   hw_<arch>_<gpu>_report.md  per open question of docs/sources.md: what was asked, what the
#                              GPU did, whether tld4 agrees (copy to tests/golden/)
#   run.log, nvidia-smi.txt
# Kernels: on an SM90 GPU the committed sm_90 cubin with its patched variants; elsewhere
# kernels/tld4_probe.portable.ptx, compiled by ptxas when `ptxas` is on PATH, else by the
# driver itself (no CUDA toolkit needed). $TLD4_HW_KERNELS overrides: auto, sm90, jit, ptxas.
# Needs no network. The runner is built with cargo when cargo is there; otherwise a binary
# built elsewhere is used: $TLD4_HW_PROBE_BIN, or target/release/tld4-hw-probe (it embeds
# every kernel). Finishes in well under 10 minutes: phases stop being started after
# $TLD4_HW_BUDGET_S seconds (default: 450 less the build time).
set -uo pipefail
t0=$(date +%s)
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${OUT:-$root/hw-probe-out}"
mkdir -p "$out"
log="$out/run.log"
say() { echo "$@" | tee -a "$log" >&2; }

# 1. The driver: fail clearly without it.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so' && [ -z "${TLD4_LIBCUDA:-}" ] \
   && ! ls /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/lib/aarch64-linux-gnu/libcuda.so* /usr/lib64/libcuda.so* /usr/local/nvidia/lib64/libcuda.so* >/dev/null 2>&1; then
  say "run-on-device: no libcuda.so.1 on this machine (no NVIDIA driver): nothing to measure"
  exit 3
fi
command -v nvidia-smi >/dev/null && nvidia-smi > "$out/nvidia-smi.txt" 2>&1

# 2. The runner: $TLD4_HW_PROBE_BIN, else a carried target/release/tld4-hw-probe (it embeds
#    the kernels, so any build of it is self-consistent), else build it with cargo.
bin="${TLD4_HW_PROBE_BIN:-}"
prebuilt="$root/target/release/tld4-hw-probe"
if [ -z "$bin" ] && [ -x "$prebuilt" ] && [ -z "${TLD4_HW_REBUILD:-}" ]; then
  bin="$prebuilt"
fi
if [ -z "$bin" ] && command -v cargo >/dev/null; then
  say "run-on-device: building the runner (cargo build --release -p tld4-hw-probe)"
  if (cd "$root" && { timeout 300 cargo build --release --offline -p tld4-hw-probe >>"$log" 2>&1 \
      || timeout 300 cargo build --release -p tld4-hw-probe >>"$log" 2>&1; }); then
    bin="$prebuilt"
  else
    say "run-on-device: cargo build failed (see run.log)"
  fi
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  say "run-on-device: no runner: no cargo build and no $prebuilt (build it elsewhere and carry it)"
  exit 4
fi

# 3. The kernels: what the GPU is, and who compiles the portable PTX for it.
cc="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')"
gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/_/g; s/^_//; s/_$//')"
kernels="${TLD4_HW_KERNELS:-auto}"
if [ "$kernels" = auto ] && [ -n "$cc" ] && [ "$cc" != 90 ] && command -v ptxas >/dev/null; then
  kernels=ptxas
fi
if [ "$kernels" = ptxas ]; then
  mkdir -p "$out/kernels"
  cubin="$out/kernels/tld4_probe.sm_$cc.ptxas.cubin"
  if ptxas -arch="sm_$cc" "$here/kernels/tld4_probe.portable.ptx" -o "$cubin" >>"$log" 2>&1; then
    say "run-on-device: $(ptxas --version | tail -1) built $cubin"
    kernels="$cubin"
  else
    say "run-on-device: ptxas -arch=sm_$cc failed (see run.log): the driver compiles the PTX instead"
    kernels=jit
  fi
fi

# 4. The run, then the report, inside 10 minutes in all: the phases get what the build left of
#    about 7.5 minutes (each phase is also cut to the time left), the whole run a hard limit.
spent=$(( $(date +%s) - t0 ))
budget="${TLD4_HW_BUDGET_S:-$(( 450 - spent > 60 ? 450 - spent : 60 ))}"
say "run-on-device: $("$bin" --version 2>/dev/null || echo tld4-hw-probe) -> $out (kernels $kernels, phase budget ${budget}s)"
timeout $(( 570 - spent > 90 ? 570 - spent : 90 )) "$bin" run --out "$out" --budget-s "$budget" --kernels "$kernels" 2>&1 | tee -a "$log"
rc=${PIPESTATUS[0]}
name="hw_sm_${cc:-unknown}${gpu:+_$gpu}"
if [ -f "$out/hw_results.json" ]; then
  "$bin" report --results "$out/hw_results.json" --golden "$out/$name.json" --report "$out/${name}_report.md" 2>&1 | tee -a "$log"
  say "run-on-device: commit $out/$name.json and $out/${name}_report.md under tests/golden/ (and send back $out whole)"
fi
say "run-on-device: runner exit $rc; files in $out"
exit "$rc"
