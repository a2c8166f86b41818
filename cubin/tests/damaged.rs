//! Damaged files never panic: random byte changes and truncations of a real ptxas cubin and of
//! a real fat binary give a result or a typed error.

use proptest::prelude::*;
use tld4_cubin::visit;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).unwrap()
}

/// Opens `data` and walks everything a caller can reach.
fn exercise(data: &[u8]) {
    let _ = visit(data, tld4_cubin::supported(), |image| {
        let Ok(image) = image else {
            return;
        };
        for k in image.cubin.kernels() {
            for site in k.tld4s() {
                let _ = image.cubin.tld4_at(k.name(), site.offset);
                if let Ok(insn) = site.decoded {
                    let _ = insn.text();
                }
            }
            let _ = image.cubin.tld4_at(k.name(), k.code().len() as u64);
        }
    });
}

fn mutate(base: &[u8], edits: &[(usize, u8)], keep: usize) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(i, v) in edits {
        let i = i % b.len();
        b[i] = v;
    }
    b.truncate(keep % (b.len() + 1));
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn a_damaged_cubin_never_panics(
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..12),
        keep in any::<usize>(),
        cut in any::<bool>(),
    ) {
        let base = read("one_gather.sm100.cubin");
        let keep = if cut { keep } else { base.len() };
        exercise(&mutate(&base, &edits, keep));
    }

    #[test]
    fn a_damaged_elf_header_never_panics(
        // The ELF header (64 bytes) and section headers are where parsing can go wrong.
        edits in prop::collection::vec((0usize..64, any::<u8>()), 1..6),
        more in prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
    ) {
        let base = read("one_gather.sm100.cubin");
        let mut all = edits;
        all.extend(more);
        exercise(&mutate(&base, &all, base.len()));
    }

    #[test]
    fn a_damaged_fat_binary_never_panics(
        edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..12),
        header_edits in prop::collection::vec((0usize..200, any::<u8>()), 0..6),
        keep in any::<usize>(),
        cut in any::<bool>(),
    ) {
        let base = read("one_gather.fatbin");
        let keep = if cut { keep } else { base.len() };
        let mut all = edits;
        all.extend(header_edits);
        exercise(&mutate(&base, &all, keep));
    }
}
