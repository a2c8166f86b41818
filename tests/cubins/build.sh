#!/usr/bin/env bash
# Rebuilds the committed cubins of tests/cubins/ and nvdisasm's listings of them (the golden
# text that `cargo test` compares `tld4 scan` and tld4-cubin with, offline):
#   <k>.sm100.cubin        ptxas -arch=sm_100 kernels/<k>.ptx, for every kernels/*.ptx but one_gather
#   <k>.sm100.sass         nvdisasm -c -hex of it
#   one_gather.sm90.cubin, one_gather.sm103.cubin   the same PTX for other architectures
#   one_gather.fatbin      fatbinary: sm_90 ELF, sm_100 ELF and the PTX, uncompressed
#   one_gather.zstd.fatbin fatbinary --compress-all: the same, every entry compressed
#   one_gather.sm100.cubin, .sass  the sm_100 cubin inside the fat binaries, and its listing
# Tools: tests/cubins/install.sh (PyPI, cached under target/). Usage: bash tests/cubins/build.sh [OUT_DIR]
# (default: tests/cubins itself; run-live.sh builds into a temporary directory and compares).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here}"
mkdir -p "$out"
bin="$(bash "$here/install.sh")"

for ptx in "$here"/kernels/*.ptx; do
  k="$(basename "$ptx" .ptx)"
  "$bin/ptxas" -arch=sm_100 "$ptx" -o "$out/$k.sm100.cubin"
  "$bin/nvdisasm" -c -hex "$out/$k.sm100.cubin" > "$out/$k.sm100.sass"
done
for arch in 90 103; do
  "$bin/ptxas" -arch=sm_$arch "$here/kernels/one_gather.ptx" -o "$out/one_gather.sm$arch.cubin"
done
images=(--image3=kind=elf,sm=90,file="$out/one_gather.sm90.cubin"
        --image3=kind=elf,sm=100,file="$out/one_gather.sm100.cubin"
        --image3=kind=ptx,sm=90,file="$here/kernels/one_gather.ptx")
"$bin/fatbinary" --create="$out/one_gather.fatbin" --compress=false "${images[@]}"
"$bin/fatbinary" --create="$out/one_gather.zstd.fatbin" --compress-all "${images[@]}"
"$bin/ptxas" --version | grep release | sed "s/^/ptxas: /" > "$out/TOOLS.txt"
"$bin/nvdisasm" --version | grep release | sed "s/^/nvdisasm: /" >> "$out/TOOLS.txt"
echo "built in $out with: $(paste -sd ';' "$out/TOOLS.txt")"
