//! The committed ptxas 13.5 cubins of every architecture (tests/cubins/<k>.sm<NN>.cubin, built
//! by tests/cubins/build.sh from the same PTX) against nvdisasm's committed `-c -hex` listings
//! of them: `tld4 scan` prints exactly the listings' TLD4 lines (kernel, offset, word, text)
//! with the architecture as the last column, and the library finds every listed word where
//! nvdisasm lists it, TLD4 or not as nvdisasm says, with that architecture's tables.
//!
//! TLD4 forms the decoder does not model yet (0x364, 0xb63 on sm_75 to sm_89: what ptxas
//! emits for a texture handle in a parameter or a divergent handle there) are printed by
//! `tld4 scan` as `not modeled: ...`; each such line is recorded with nvdisasm's text in
//! tests/cubins/not-modeled.tsv and counted here, so that the test fails (and the record
//! shrinks) the day the decoder models them.

use std::collections::{BTreeMap, BTreeSet};

use tld4_cubin::listing::{parse_listing, ListedInsn};
use tld4_cubin::{classify, supported, Cubin};

mod common;
use common::{text, tld4};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubins/");
/// Every kernel file of tests/cubins/kernels/.
const KERNELS: &[&str] = &["gather_2d", "gather_handles", "gather_layers", "one_gather"];
/// The architectures build.sh builds them for (file suffix `sm<NN>`).
const ARCHS: &[u32] = &[75, 80, 86, 89, 90, 100, 103, 110, 120, 121];
/// Lines of not-modeled.tsv: the TLD4s of forms the decoder does not model yet, on these
/// cubins (20 on each of sm_75, sm_80, sm_86, sm_89: 19 0xb63 and 1 0x364).
const NOT_MODELED: usize = 80;

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

/// tests/cubins/not-modeled.tsv: place -> nvdisasm's text.
fn not_modeled_record() -> BTreeMap<Place, String> {
    let text = std::fs::read_to_string(format!("{DIR}not-modeled.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 5, "{l}");
            let place = (
                c[0].to_string(),
                c[1].to_string(),
                u64::from_str_radix(c[2].trim_start_matches("0x"), 16).unwrap(),
                u128::from_str_radix(c[3], 16).unwrap(),
            );
            (place, c[4].to_string())
        })
        .collect()
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
fn scan_prints_each_architectures_listing_and_counts_what_is_not_modeled() {
    let record = not_modeled_record();
    assert_eq!(record.len(), NOT_MODELED, "not-modeled.tsv");
    let mut not_modeled_seen: BTreeSet<Place> = BTreeSet::new();
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
        let mut unmodeled_here = 0;
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
            let text = if let Some(why) = c[4].strip_prefix("not modeled: ") {
                assert!(why.contains("does not model"), "{line}");
                unmodeled_here += 1;
                assert!(not_modeled_seen.insert(place.clone()), "{line}");
                record
                    .get(&place)
                    .unwrap_or_else(|| panic!("not modeled, and not in not-modeled.tsv: {line}"))
                    .clone()
            } else {
                c[4].to_string()
            };
            got.insert((place, text));
        }
        let mut want: BTreeSet<(Place, String)> = BTreeSet::new();
        for n in &names {
            for l in listing(n).into_iter().filter(|l| l.is_tld4()) {
                let place = (format!("{n}.cubin"), l.kernel, l.offset, l.word.unwrap());
                want.insert((place, l.text));
            }
        }
        assert_eq!(got, want, "sm_{arch}");
        // Exit 1 when some word could not be printed as nvdisasm prints it, and said so.
        let stderr = text(&out.stderr);
        if unmodeled_here == 0 {
            assert!(out.status.success(), "sm_{arch}: {stderr}");
            assert_eq!(stderr, "", "sm_{arch}");
        } else {
            assert_eq!(out.status.code(), Some(1), "sm_{arch}: {stderr}");
            let counted: usize = stderr
                .lines()
                .filter_map(|l| l.split(": ").nth(2))
                .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
                .sum();
            assert_eq!(counted, unmodeled_here, "sm_{arch}: {stderr}");
        }
        per_arch.insert(*arch, unmodeled_here);
    }
    // Every recorded line was seen, and where.
    assert_eq!(not_modeled_seen.len(), NOT_MODELED);
    let with_gaps: Vec<u32> = per_arch
        .iter()
        .filter(|(_, &n)| n > 0)
        .map(|(&a, _)| a)
        .collect();
    assert_eq!(with_gaps, [75, 80, 86, 89], "{per_arch:?}");
}
