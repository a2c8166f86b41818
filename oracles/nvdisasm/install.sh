#!/usr/bin/env bash
# Installs NVIDIA's nvdisasm (PyPI package nvidia-cuda-nvdisasm) into the virtual
# environment target/oracle-venv, unless it is there already, and prints the binary's path.
#
#   bash oracles/nvdisasm/install.sh        # prints .../nvidia/cu13/bin/nvdisasm
#
# The version is pinned to the one the golden corpus (tests/golden/) was generated with;
# set NVDISASM_PIP_SPEC (e.g. "nvidia-cuda-nvdisasm>=13.5") to install another.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/target/oracle-venv"
spec="${NVDISASM_PIP_SPEC:-nvidia-cuda-nvdisasm==13.5.37}"

find_nvdisasm() {
    local f
    for f in "$venv"/lib/python*/site-packages/nvidia/cu*/bin/nvdisasm; do
        if [ -x "$f" ] && "$f" --version >/dev/null 2>&1; then
            echo "$f"
            return 0
        fi
    done
    return 1
}

if ! bin="$(find_nvdisasm)"; then
    if [ ! -x "$venv/bin/pip" ]; then
        python3 -m venv "$venv" >&2
    fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$spec" >&2
    bin="$(find_nvdisasm)" || {
        echo "install.sh: $spec installed, but no working nvdisasm under $venv" >&2
        exit 1
    }
fi
echo "$bin"
