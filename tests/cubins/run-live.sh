#!/usr/bin/env bash
# Live check (for .ci/run): rebuilds every cubin of tests/cubins/ with ptxas (build.sh, into a
# temporary directory), lists each with nvdisasm -c -hex, and checks that `tld4 scan` prints
# exactly nvdisasm's TLD4 lines: kernel, offset, word and text. Also scans the fat binary
# (its sm_100 entry) and reports whether the fresh cubins are byte-identical to the committed
# ones. Exits nonzero on any difference.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash "$here/build.sh" "$tmp" > /dev/null
cargo build -q --release --manifest-path "$root/Cargo.toml" --bin tld4
tld4="$root/target/release/tld4"

# nvdisasm -c -hex -> "FILE<TAB>kernel<TAB>0xOFFS<TAB>hi lo<TAB>text" for each TLD4 line.
tld4_lines() {
  awk -v file="$2" '
    /^[ \t]*\.section[ \t]+\.text\./ { k = $2; sub(/^\.text\./, "", k); sub(/,.*/, "", k); next }
    want { hi = $0; sub(/^[ \t]*\/\*[ \t]*0x/, "", hi); sub(/[ \t]*\*\/.*/, "", hi)
           printf "%s\t%s\t0x%s\t%s%s\t%s\n", file, k, off, hi, lo, txt; want = 0; next }
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
for cubin in "$tmp"/*.sm100.cubin; do
  name="$(basename "$cubin")"
  sass="$tmp/${name%.cubin}.sass"
  tld4_lines "$sass" "$cubin" > "$tmp/want"
  "$tld4" scan "$cubin" | sort > "$tmp/got"
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

# The fat binary: its sm_100 entry (entry 1) gives the same lines as the single cubin.
"$tld4" scan "$tmp/one_gather.fatbin" | sed "s|^$tmp/one_gather.fatbin#1|X|" | sort > "$tmp/fat"
"$tld4" scan "$tmp/one_gather.sm100.cubin" | sed "s|^$tmp/one_gather.sm100.cubin|X|" | sort > "$tmp/one"
if diff "$tmp/one" "$tmp/fat" > /dev/null && [ -s "$tmp/one" ]; then echo "ok   one_gather.fatbin: its sm_100 entry scans like the cubin"
else echo "FAIL one_gather.fatbin: its sm_100 entry scans unlike the cubin"; fail=1; fi
# The compressed fat binary: an error that says how to extract the cubin.
if "$tld4" scan "$tmp/one_gather.zstd.fatbin" 2> "$tmp/err"; then echo "FAIL one_gather.zstd.fatbin: no error"; fail=1
elif grep -q "cuobjdump -xelf all" "$tmp/err"; then echo "ok   one_gather.zstd.fatbin: $(cat "$tmp/err")"
else echo "FAIL one_gather.zstd.fatbin: $(cat "$tmp/err")"; fail=1; fi

if [ "$fail" -ne 0 ]; then echo "run-live.sh: FAILED"; exit 1; fi
echo "run-live.sh: $checked TLD4 lines agree with nvdisasm"
