#!/usr/bin/env bash
# Live check (for .ci/run): rebuilds every cubin of tests/cubins/ with ptxas (sm_75 to sm_121)
# and every shape of tests/cubins/shapes/ with nvcc (build.sh, into a temporary directory),
# lists each with nvdisasm -c -hex and cuobjdump, and checks that `tld4 scan` prints exactly
# nvdisasm's TLD4 lines: entry, kernel, offset, word, text and architecture, every form of
# every architecture printed as nvdisasm prints it (the shapes through the offline test itself, pointed at the fresh files with TLD4_SHAPES_DIR). Also scans the fat binaries
# (their sm_100 entry, compressed or not) and reports whether the fresh cubins are
# byte-identical to the committed ones. Exits nonzero on any difference.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash "$here/build.sh" "$tmp" > /dev/null
cargo build -q --release --manifest-path "$root/Cargo.toml" --bin tld4
tld4="$root/target/release/tld4"

# nvdisasm -c -hex -> "FILE<TAB>kernel<TAB>0xOFFS<TAB>hi lo<TAB>text<TAB>ARCH" for each TLD4 line.
tld4_lines() {
  awk -v file="$2" -v arch="$3" '
    /^[ \t]*\.section[ \t]+\.text\./ { k = $2; sub(/^\.text\./, "", k); sub(/,.*/, "", k); next }
    want { hi = $0; sub(/^[ \t]*\/\*[ \t]*0x/, "", hi); sub(/[ \t]*\*\/.*/, "", hi)
           printf "%s\t%s\t0x%s\t%s%s\t%s\t%s\n", file, k, off, hi, lo, txt, arch; want = 0; next }
    /^[ \t]*\/\*[0-9a-f]+\*\// {
      line = $0; sub(/^[ \t]*\/\*/, "", line); off = line; sub(/\*\/.*/, "", off)
      sub(/^[0-9a-f]+\*\/[ \t]*/, "", line)
      txt = line; sub(/;.*/, "", txt); sub(/[ \t]+$/, "", txt); sub(/^[ \t]+/, "", txt); txt = txt " ;"
      lo = line; sub(/^[^;]*;[ \t]*\/\*[ \t]*0x/, "", lo); sub(/[ \t]*\*\/.*/, "", lo)
      m = txt; sub(/^@!?U?P[0-9T][ \t]+/, "", m)
      if (m ~ /^TLD4([. ]|$)/) want = 1
    }' "$1" | sort
}

fail=0; checked=0
for cubin in "$tmp"/*.sm[0-9]*.cubin; do
  name="$(basename "$cubin")"
  sass="$tmp/${name%.cubin}.sass"
  sm="${name##*.sm}"; sm="sm_${sm%.cubin}"
  tld4_lines "$sass" "$cubin" "$sm" > "$tmp/want"
  "$tld4" scan "$cubin" 2> /dev/null > "$tmp/raw" || true
  sort "$tmp/raw" > "$tmp/got"
  n="$(wc -l < "$tmp/want")"
  if [ "$n" -eq 0 ]; then echo "FAIL $name: nvdisasm lists no TLD4"; fail=1; continue; fi
  if diff "$tmp/want" "$tmp/got" > "$tmp/diff"; then
    echo "ok   $name: $n TLD4 lines agree with nvdisasm -c"
    checked=$((checked + n))
  else
    echo "FAIL $name: tld4 scan differs from nvdisasm -c (< nvdisasm, > tld4 scan):"; cat "$tmp/diff"; fail=1
  fi
  if cmp -s "$cubin" "$here/$name"; then echo "     $name: identical to the committed cubin"
  else echo "     $name: differs from the committed cubin (another ptxas? see TOOLS.txt)"; fi
done

# The fat binaries: their sm_90 and sm_100 entries (ELF entries 1 and 2, as cuobjdump numbers
# them) give the same lines as the single cubins, compressed (zstd) or not.
for e in "1 sm90" "2 sm100"; do
  set -- $e
  "$tld4" scan "$tmp/one_gather.$2.cubin" | sed "s|^$tmp/one_gather.$2.cubin|X#$1|"
done | sort > "$tmp/one"
for fat in one_gather.fatbin one_gather.zstd.fatbin; do
  "$tld4" scan "$tmp/$fat" 2> "$tmp/err" | sed "s|^$tmp/$fat|X|" | sort > "$tmp/fat"
  if diff "$tmp/one" "$tmp/fat" > /dev/null && [ -s "$tmp/one" ]; then echo "ok   $fat: its sm_90 and sm_100 entries scan like the cubins"
  else echo "FAIL $fat: its entries scan unlike the cubins"; fail=1; fi
done

# The shapes nvcc builds: the offline test, on the fresh files and listings.
if TLD4_SHAPES_DIR="$tmp/shapes" cargo test -q --manifest-path "$root/Cargo.toml" -p tld4 \
    --test integration scan_lists_what_nvdisasm_and_cuobjdump_list > "$tmp/shapes.log" 2>&1; then
  echo "ok   shapes: $(ls "$tmp/shapes" | grep -c -v -E '\.(sass|lelf|cuobjdump-sass)$') files nvcc built scan as nvdisasm and cuobjdump list them"
else echo "FAIL shapes:"; cat "$tmp/shapes.log"; fail=1; fi
for f in "$tmp"/shapes/*; do
  case "$f" in *.sass|*.lelf|*.cuobjdump-sass) continue ;; esac
  if ! cmp -s "$f" "$here/shapes/$(basename "$f")"; then echo "     shapes/$(basename "$f"): differs from the committed file (another nvcc or host compiler? see TOOLS.txt)"; fi
done

if [ "$fail" -ne 0 ]; then echo "run-live.sh: FAILED"; exit 1; fi
echo "run-live.sh: $checked TLD4 lines agree with nvdisasm"
