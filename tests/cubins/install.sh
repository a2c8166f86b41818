#!/usr/bin/env bash
# Installs NVIDIA's ptxas, nvcc, fatbinary, nvdisasm and cuobjdump (PyPI packages
# nvidia-cuda-nvcc, nvidia-cuda-nvdisasm and nvidia-cuda-cuobjdump) into the virtual environment target/ptxas-venv (the one
# oracles/hw-probe/build-kernels.sh uses), unless they are there already, and prints the
# directory of the binaries.
#
#   bash tests/cubins/install.sh        # prints .../nvidia/cu13/bin
#
# Pinned to the version the committed cubins and listings were made with; set
# CUBIN_PIP_SPECS (e.g. "nvidia-cuda-nvcc>=13.5 nvidia-cuda-nvdisasm>=13.5
# nvidia-cuda-cuobjdump>=13.5") to install others.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/target/ptxas-venv"
specs="${CUBIN_PIP_SPECS:-nvidia-cuda-nvcc==13.5.37 nvidia-cuda-nvdisasm==13.5.37 nvidia-cuda-cuobjdump==13.5.37}"

find_bin() {
    local d
    for d in "$venv"/lib/python*/site-packages/nvidia/cu*/bin; do
        if [ -x "$d/ptxas" ] && [ -x "$d/nvdisasm" ] && [ -x "$d/cuobjdump" ] \
            && "$d/ptxas" --version >/dev/null 2>&1 && "$d/nvdisasm" --version >/dev/null 2>&1 \
            && "$d/cuobjdump" --version >/dev/null 2>&1; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

if ! bin="$(find_bin)"; then
    if [ ! -x "$venv/bin/pip" ]; then
        python3 -m venv "$venv" >&2
    fi
    # shellcheck disable=SC2086
    "$venv/bin/pip" install --quiet --disable-pip-version-check $specs >&2
    bin="$(find_bin)" || {
        echo "install.sh: $specs installed, but no working ptxas, nvdisasm and cuobjdump under $venv" >&2
        exit 1
    }
fi
echo "$bin"
