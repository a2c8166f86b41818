//! The committed ptxas 13.5 cubins of every architecture (tests/cubins/<k>.sm<NN>.cubin, built
//! by tests/cubins/build.sh from the same PTX) against nvdisasm's committed `-c -hex` listings
//! of them: `tld4 scan` prints exactly the listings' TLD4 lines (kernel, offset, word, text)
//! with the architecture as the last column, and the library finds every listed word where
//! nvdisasm lists it, TLD4 or not as nvdisasm says, with that architecture's tables.
//! That includes the pre-SM100 forms ptxas emits on sm_75 to sm_89 (0xb63 for a texture
//! handle in a parameter, 0x364 for a divergent one): every line agrees, none is left
//! `not modeled`, and the scan exits 0 with nothing on standard error.

use std::collections::{BTreeMap, BTreeSet};

use tld4_cubin::listing::{parse_listing, ListedInsn};
use tld4_cubin::{classify, supported, Cubin};

use crate::common;
use common::{text, tld4};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubins/");
/// Every kernel file of tests/cubins/kernels/.
const KERNELS: &[&str] = &["gather_2d", "gather_handles", "gather_layers", "one_gather"];
/// The architectures build.sh builds them for (file suffix `sm<NN>`).
const ARCHS: &[u32] = &[75, 80, 86, 89, 90, 100, 103, 110, 120, 121];

/// (file name, kernel, offset, word).
type Place = (String, String, u64, u128);

fn listing(name: &str) -> Vec<ListedInsn> {
    let text = std::fs::read_to_string(format!("{DIR}{name}.sass"))
        .unwrap_or_else(|e| panic!("{name}.sass: {e}"));
    parse_listing(&text).unwrap_or_else(|e| panic!("{name}.sass: {e}"))
}

/// The tld4 instructions of a kernel file's PTX (comment lines aside).
fn ptx_tld4s(kernel: &str) -> usize {
    std::fs::read_to_string(format!("{DIR}kernels/{kernel}.ptx"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && l.contains("tld4."))
        .count()
}

#[test]
fn the_library_reads_every_listed_word_of_every_architecture_with_its_own_tables() {
    for arch in ARCHS {
        for k in KERNELS {
            let name = format!("{k}.sm{arch}");
            let bytes = std::fs::read(format!("{DIR}{name}.cubin")).unwrap();
            let cubin = Cubin::parse(&bytes, supported()).unwrap();
            assert_eq!(cubin.arch().0, *arch, "{name}");
            assert_eq!(cubin.tables().name(), format!("sm_{arch}"), "{name}");
            let listed = listing(&name);
            for l in &listed {
                let w = cubin.kernel(&l.kernel).unwrap().word_at(l.offset).unwrap();
                assert_eq!(Some(w), l.word, "{name} {} {:#06x}", l.kernel, l.offset);
                assert_eq!(
                    classify(cubin.tables(), w).is_some(),
                    l.is_tld4(),
                    "{name}: {}",
                    l.text
                );
            }
            let words: usize = cubin.kernels().iter().map(|k| k.words().count()).sum();
            assert_eq!(words, listed.len(), "{name}: every instruction listed once");
            // ptxas keeps every tld4 of the PTX, on every architecture.
            let tld4s = listed.iter().filter(|l| l.is_tld4()).count();
            assert_eq!(tld4s, ptx_tld4s(k), "{name}");
        }
    }
}

#[test]
fn scan_prints_each_architectures_listing() {
    let mut per_arch: BTreeMap<u32, usize> = BTreeMap::new();
    for arch in ARCHS {
        let names: Vec<String> = KERNELS.iter().map(|k| format!("{k}.sm{arch}")).collect();
        let paths: Vec<String> = names.iter().map(|n| format!("{DIR}{n}.cubin")).collect();
        let args: Vec<&str> = std::iter::once("scan")
            .chain(paths.iter().map(String::as_str))
            .collect();
        let out = tld4(&args);
        let stdout = text(&out.stdout);
        let mut got: BTreeSet<(Place, String)> = BTreeSet::new();
        for line in stdout.lines() {
            let c: Vec<&str> = line.split('\t').collect();
            assert_eq!(c.len(), 6, "{line}");
            assert_eq!(c[5], format!("sm_{arch}"), "the architecture, last: {line}");
            let file = c[0].strip_prefix(DIR).unwrap().to_string();
            let place: Place = (
                file,
                c[1].to_string(),
                u64::from_str_radix(c[2].trim_start_matches("0x"), 16).unwrap(),
                u128::from_str_radix(c[3], 16).unwrap(),
            );
            got.insert((place, c[4].to_string()));
        }
        let mut want: BTreeSet<(Place, String)> = BTreeSet::new();
        for n in &names {
            for l in listing(n).into_iter().filter(|l| l.is_tld4()) {
                let place = (format!("{n}.cubin"), l.kernel, l.offset, l.word.unwrap());
                want.insert((place, l.text));
            }
        }
        assert_eq!(got, want, "sm_{arch}");
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "sm_{arch}: {stderr}");
        assert_eq!(stderr, "", "sm_{arch}");
        per_arch.insert(*arch, got.len());
    }
    // ptxas emits TLD4 on every architecture, the pre-SM100 forms included.
    assert!(per_arch.values().all(|&n| n > 0), "{per_arch:?}");
}
