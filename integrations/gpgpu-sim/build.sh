#!/usr/bin/env bash
# Builds GPGPU-Sim (Accel-Sim's gpgpu-sim_distribution, commit 667834c) with tld4 as its
# texture unit:
#
#   bash integrations/gpgpu-sim/build.sh [SRC]
#
# SRC is a GPGPU-Sim source tree or a tarball of one (the vendored
# gpgpu-sim_distribution-667834c.tar.gz); with no SRC, the pinned commit is cloned.
# The patches of integrations/gpgpu-sim/patches/ are applied in order to a fresh copy in
# $GPGPUSIM_WORK (default target/gpgpu-sim-tld4/src), which is then built against
#   - tld4's C library installed by capi/install.sh into $TLD4_PREFIX (default
#     target/gpgpu-sim-tld4/tld4, installed here when missing),
#   - the CUDA 13 toolchain from PyPI in a virtual environment ($CUDA_VENV, default
#     target/gpgpu-sim-tld4/cuda13-venv, installed here when missing).
# At the end it prints the three lines a shell needs (CUDA_INSTALL_PATH, PATH,
# LD_LIBRARY_PATH) to run CUDA programs on the simulator.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${GPGPUSIM_OUT:-$root/target/gpgpu-sim-tld4}"
work="${GPGPUSIM_WORK:-$out/src}"
prefix="${TLD4_PREFIX:-$out/tld4}"
venv="${CUDA_VENV:-$out/cuda13-venv}"
commit=667834cfe5214523edd7769aeab77f91b7137686
jobs="${JOBS:-2}"

missing=()
for tool in bison flex make g++ makedepend python3 patch; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
[ -f /usr/include/zlib.h ] || missing+=("zlib1g-dev (zlib.h)")
[ -e /usr/lib/x86_64-linux-gnu/libGL.so ] || [ -e /usr/lib64/libGL.so ] || missing+=("libgl-dev (libGL.so)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "build.sh: missing: ${missing[*]}" >&2
  echo "  Debian: apt-get install bison flex make g++ xutils-dev zlib1g-dev libgl-dev python3-venv" >&2
  exit 1
fi

# 1. The source: a tree, a tarball, or a clone of the pinned commit.
rm -rf "$work"
mkdir -p "$work"
src="${1:-}"
if [ -z "$src" ]; then
  command -v git >/dev/null || { echo "build.sh: no SRC given and no git to clone" >&2; exit 1; }
  git clone --quiet https://github.com/accel-sim/gpgpu-sim_distribution "$work"
  git -C "$work" checkout --quiet "$commit"
elif [ -f "$src" ]; then
  tar -xzf "$src" -C "$work"
elif [ -d "$src" ]; then
  (cd "$src" && tar --exclude=./build --exclude=./lib --exclude=./.git -cf - .) | tar -xf - -C "$work"
else
  echo "build.sh: $src is neither a directory nor a tarball" >&2
  exit 1
fi
[ -f "$work/setup_environment" ] || { echo "build.sh: $src holds no GPGPU-Sim tree" >&2; exit 1; }
for p in "$here"/patches/[0-9][0-9][0-9][0-9]-*.patch; do
  patch -d "$work" -p1 --quiet --forward < "$p" || { echo "build.sh: $p does not apply" >&2; exit 1; }
done

# 2. The CUDA 13 toolchain (PyPI), pinned.
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
cuda="$("$venv/bin/python" -c 'import os, nvidia; print(os.path.join(list(nvidia.__path__)[0], "cu13"))' 2>/dev/null || true)"
if [ -z "$cuda" ] || [ ! -x "$cuda/bin/nvcc" ] || [ ! -x "$cuda/bin/nvdisasm" ]; then
  "$venv/bin/pip" install --quiet nvidia-cuda-nvcc==13.5.37 nvidia-cuda-runtime==13.5.37 \
    nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37 nvidia-cuda-profiler-api==13.5.25 ||
    { echo "build.sh: could not install the CUDA 13 toolchain from PyPI into $venv" >&2; exit 1; }
  cuda="$("$venv/bin/python" -c 'import os, nvidia; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')"
fi
# nvcc links -lcudart: the wheel ships libcudart.so.13 only.
ln -sfn libcudart.so.13 "$cuda/lib/libcudart.so"
[ -e "$cuda/lib64" ] || ln -sfn lib "$cuda/lib64"

# 3. tld4's C library.
if [ ! -f "$prefix/lib/libtld4.a" ] || [ ! -f "$prefix/include/tld4.h" ]; then
  command -v cargo >/dev/null || { echo "build.sh: no tld4 C library in $prefix and no cargo to build it" >&2; exit 1; }
  bash "$root/capi/install.sh" "$prefix"
fi

# 4. GPGPU-Sim.
(
  cd "$work"
  export CUDA_INSTALL_PATH="$cuda" TLD4_PREFIX="$prefix"
  # setup_environment is not written for set -euo pipefail
  set +euo pipefail
  # shellcheck disable=SC1091
  source setup_environment >/dev/null
  set -euo pipefail
  make -j"$jobs" >"$out/make.log" 2>&1 || { tail -30 "$out/make.log" >&2; echo "build.sh: make failed (log: $out/make.log)" >&2; exit 1; }
  echo "GPGPUSIM_LIB=$(ls -d "$work"/lib/gcc-*/cuda-*/release)" >"$out/env"
)
lib="$(sed -n 's/^GPGPUSIM_LIB=//p' "$out/env")"
# GPGPU-Sim's own setup_environment sets what the simulator reads at run time
# (PTX_SIM_USE_PTX_FILE, CUOBJDUMP_SIM_FILE, LD_LIBRARY_PATH to its libcudart.so).
{
  echo "export CUDA_INSTALL_PATH=$cuda"
  echo "source $work/setup_environment >/dev/null"
  echo "export LD_LIBRARY_PATH=$lib:\$LD_LIBRARY_PATH"
} >"$out/env.sh"
echo "built: $lib/libcudart.so"
echo "to run programs on it: source $out/env.sh"
