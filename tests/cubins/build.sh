#!/usr/bin/env bash
# Rebuilds the committed cubins of tests/cubins/ and nvdisasm's listings of them (the golden
# text that `cargo test` compares `tld4 scan` and tld4-cubin with, offline):
#   <k>.sm100.cubin        ptxas -arch=sm_100 kernels/<k>.ptx, for every kernels/*.ptx but one_gather
#   <k>.sm100.sass         nvdisasm -c -hex of it
#   <k>.sm<NN>.cubin       ptxas -arch=sm_NN of every kernels/*.ptx for each architecture of ARCHS
#                          (sm_75 to sm_121; the PTX's .target and .version rewritten to sm_NN and
#                          9.0, the lowest PTX version every one of them takes), with
#   <k>.sm<NN>.sass        nvdisasm -c -hex of it (golden text for tests/cubin_arches.rs)
#   one_gather.fatbin      fatbinary: sm_90 ELF, sm_100 ELF and the PTX, uncompressed
#   one_gather.zstd.fatbin fatbinary --compress-all: the same, every entry compressed
#   one_gather.sm100.cubin, .sass  the sm_100 cubin inside the fat binaries, and its listing
#   shapes/                what nvcc builds from kernels/gather_a.cu and gather_b.cu (tex2Dgather),
#                          each with `cuobjdump -lelf` (S.lelf: its ELF entries, numbered), for
#                          each ELF entry N `nvdisasm -c -hex` of the cubin `cuobjdump -xelf`
#                          extracts (S.N.sass), and `cuobjdump -sass` (S.cuobjdump-sass); the
#                          listings kept to their section, function and TLD4 lines (tld4_only):
#     gather_a.zstd.o      nvcc -c --compress-mode=size: the cubin zstd-compressed (flag 0x8000)
#     gather_a.lz4.o       nvcc -c --compress-mode=speed -Xfatbin=-compress-all: LZ4 (flag 0x2000)
#     gather_a.G.o         nvcc -c -G: a debug build (zstd-compressed without being asked)
#     gather_a.rdc.o       nvcc -rdc=true -c: device code in __nv_relfatbin
#     gather_ab.dlink      nvcc -rdc=true of both units and main.cu: a device-linked executable
#                          whose cubin has two copies of the reciprocal helper
#     libgather.a          nvcc -lib of both units' objects: a static archive
#     libgather_multi.so   nvcc -shared for sm_90, sm_100, sm_100a and compute_120 PTX
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
# Every other architecture the decoder knows that ptxas 13.5 builds for (sm_100 is above).
ARCHS="75 80 86 89 90 103 110 120 121"
ptxdir="$(mktemp -d)"
for arch in $ARCHS; do
  for ptx in "$here"/kernels/*.ptx; do
    k="$(basename "$ptx" .ptx)"
    sed -E "s/^\.version .*/.version 9.0/; s/^\.target sm_[0-9]+[af]?/.target sm_$arch/" "$ptx" > "$ptxdir/$k.ptx"
    "$bin/ptxas" -arch=sm_$arch "$ptxdir/$k.ptx" -o "$out/$k.sm$arch.cubin"
    "$bin/nvdisasm" -c -hex "$out/$k.sm$arch.cubin" > "$out/$k.sm$arch.sass"
  done
done
rm -rf "$ptxdir"
images=(--image3=kind=elf,sm=90,file="$out/one_gather.sm90.cubin"
        --image3=kind=elf,sm=100,file="$out/one_gather.sm100.cubin"
        --image3=kind=ptx,sm=90,file="$here/kernels/one_gather.ptx")
"$bin/fatbinary" --create="$out/one_gather.fatbin" --compress=false "${images[@]}"
"$bin/fatbinary" --create="$out/one_gather.zstd.fatbin" --compress-all "${images[@]}"

# The CUDA shapes. nvcc needs a host compiler (g++) and, to link, libcudart.so: the PyPI runtime
# ships libcudart.so.13 only, so a link named libcudart.so is made in a temporary directory.
lib="$(cd "$bin/../lib" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ln -s "$lib/libcudart.so.13" "$work/libcudart.so"
s="$out/shapes"
mkdir -p "$s"
k="$here/kernels"
nvcc=("$bin/nvcc" -arch=sm_100 -Xlinker --strip-all -cudart shared -L"$work")
"$bin/nvcc" -arch=sm_100 -c --compress-mode=size "$k/gather_a.cu" -o "$s/gather_a.zstd.o"
"$bin/nvcc" -arch=sm_100 -c --compress-mode=speed -Xfatbin=-compress-all "$k/gather_a.cu" -o "$s/gather_a.lz4.o"
"$bin/nvcc" -arch=sm_100 -c -G "$k/gather_a.cu" -o "$s/gather_a.G.o"
"$bin/nvcc" -arch=sm_100 -c -rdc=true "$k/gather_a.cu" -o "$s/gather_a.rdc.o"
"$bin/nvcc" -arch=sm_100 -c -rdc=true "$k/gather_b.cu" -o "$work/gather_b.rdc.o"
"$bin/nvcc" -arch=sm_100 -c "$k/main.cu" -o "$work/main.o"
"${nvcc[@]}" -rdc=true "$s/gather_a.rdc.o" "$work/gather_b.rdc.o" "$work/main.o" -o "$s/gather_ab.dlink"
"$bin/nvcc" -arch=sm_100 -c "$k/gather_a.cu" -o "$work/gather_a.o"
"$bin/nvcc" -arch=sm_100 -c "$k/gather_b.cu" -o "$work/gather_b.o"
(cd "$work" && "$bin/nvcc" -lib gather_a.o gather_b.o -o "$s/libgather.a")
"${nvcc[@]}" -shared -Xcompiler -fPIC -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_100,code=sm_100 -gencode arch=compute_100a,code=sm_100a \
  -gencode arch=compute_120,code=compute_120 "$k/gather_a.cu" "$k/gather_b.cu" -o "$s/libgather_multi.so"
# A listing's section and function headers, and its TLD4 lines with the -hex line after each.
tld4_only() {
  awk '/^[ \t]*\.section|Function :|code for sm_|^member|^Fatbin/ { print; next }
       want { print; want = 0; next }
       /^[ \t]*\/\*[0-9a-f]+\*\/.*[ \t]TLD4[. ]/ { print; want = 1 }'
}
for f in gather_a.zstd.o gather_a.lz4.o gather_a.G.o gather_a.rdc.o gather_ab.dlink libgather.a libgather_multi.so; do
  (cd "$s" && "$bin/cuobjdump" -lelf "$f" | sed "s|$s/||" > "$f.lelf"
   "$bin/cuobjdump" -sass "$f" | sed "s|$s/||" | tld4_only > "$f.cuobjdump-sass")
  rm -rf "$work/x" && mkdir "$work/x"
  # "Extracting ELF file    N: NAME" (NAME need not hold N: a -G build's does not).
  (cd "$work/x" && "$bin/cuobjdump" -xelf all "$s/$f" > "$work/extracted")
  while read -r _ _ _ n name; do
    case "$name" in *.cubin) "$bin/nvdisasm" -c -hex "$work/x/$name" | tld4_only > "$s/$f.${n%:}.sass" ;; esac
  done < "$work/extracted"
done

"$bin/ptxas" --version | grep release | sed "s/^/ptxas: /" > "$out/TOOLS.txt"
"$bin/nvdisasm" --version | grep release | sed "s/^/nvdisasm: /" >> "$out/TOOLS.txt"
"$bin/nvcc" --version | grep release | sed "s/^/nvcc: /" >> "$out/TOOLS.txt"
"$bin/cuobjdump" --version | grep release | sed "s/^/cuobjdump: /" >> "$out/TOOLS.txt"
g++ --version | head -1 | sed "s/^/host compiler: /" >> "$out/TOOLS.txt"
echo "built in $out with: $(paste -sd ';' "$out/TOOLS.txt")"
