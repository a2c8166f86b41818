#!/usr/bin/env bash
# Rebuilds the committed outputs of examples/cuda/gather.cu with nvcc 13.5 (PyPI, installed
# by tests/cubins/install.sh under target/):
#   gather.ptx          nvcc -ptx: CUDA's tex2Dgather lowered to PTX tld4
#   gather.sm100.cubin  nvcc -cubin -arch=sm_100: the SASS TLD4s tests/cubin_example.rs runs
#   gather.o            nvcc -c: a host object with the cubin embedded (section .nv_fatbin)
# (A linked executable, `nvcc -o gather gather.cu`, also works here but is 1 MB: not committed.)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(bash "$here/../../tests/cubins/install.sh")"
export PATH="$bin:$PATH"
cd "$here"
nvcc -arch=sm_100 -ptx -o gather.ptx gather.cu
nvcc -arch=sm_100 -cubin -o gather.sm100.cubin gather.cu
nvcc -arch=sm_100 -c -o gather.o gather.cu
echo "built in $here with $(nvcc --version | grep release)"
