//! The committed ptxas cubins (tests/cubins/, built by build.sh) against nvdisasm's committed
//! listings of them: the same instructions, words, TLD4 lines, offsets and texts.

use std::collections::BTreeSet;

use tld4_cubin::listing::{parse_listing, ListedInsn};
use tld4_cubin::{classify, extract, Cubin, Origin, Target, SM100};
use tld4_decoder::{Component, Dimension, OffsetMode, Pred};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/");
/// Every cubin build.sh makes for sm_100, with nvdisasm's listing beside it.
const CUBINS: &[&str] = &["gather_2d", "gather_layers", "gather_handles", "one_gather"];

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn listing(name: &str) -> Vec<ListedInsn> {
    let text = String::from_utf8(read(&format!("{name}.sm100.sass"))).unwrap();
    parse_listing(&text).unwrap()
}

/// The tld4 instructions of the kernels' PTX (comment lines aside).
fn ptx_tld4_count() -> usize {
    CUBINS
        .iter()
        .map(|n| {
            let ptx = String::from_utf8(read(&format!("kernels/{n}.ptx"))).unwrap();
            ptx.lines()
                .filter(|l| !l.trim_start().starts_with("//") && l.contains("tld4."))
                .count()
        })
        .sum()
}

type Line = (String, u64, u128, String);

#[test]
fn every_listed_word_is_in_the_cubin_and_tld4_exactly_where_nvdisasm_says() {
    let mut total = 0;
    for name in CUBINS {
        let bytes = read(&format!("{name}.sm100.cubin"));
        let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
        let listed = listing(name);
        // The same kernels.
        let ours: BTreeSet<String> = cubin.kernel_names().into_iter().collect();
        let theirs: BTreeSet<String> = listed.iter().map(|l| l.kernel.clone()).collect();
        assert_eq!(ours, theirs, "{name}: kernels");
        // Every instruction nvdisasm lists: our word there, and TLD4 or not alike.
        for l in &listed {
            let k = cubin.kernel(&l.kernel).unwrap();
            let w = k.word_at(l.offset).unwrap();
            assert_eq!(Some(w), l.word, "{name} {} {:#06x}", l.kernel, l.offset);
            assert_eq!(
                classify(cubin.tables(), w).is_some(),
                l.is_tld4(),
                "{name}: {}",
                l.text
            );
        }
        // Every instruction of every section is listed once.
        let words: usize = cubin.kernels().iter().map(|k| k.words().count()).sum();
        assert_eq!(words, listed.len(), "{name}");
        // The TLD4 lines: kernel, offset, word, text.
        let want: BTreeSet<Line> = listed
            .iter()
            .filter(|l| l.is_tld4())
            .map(|l| (l.kernel.clone(), l.offset, l.word.unwrap(), l.text.clone()))
            .collect();
        let got: BTreeSet<Line> = cubin
            .tld4s()
            .into_iter()
            .map(|s| {
                let text = s.decoded.unwrap().text();
                (s.kernel.to_string(), s.offset, s.word, text)
            })
            .collect();
        assert_eq!(got, want, "{name}");
        total += got.len();
    }
    // As many TLD4 as the PTX has tld4 instructions (ptxas keeps each one).
    assert_eq!(total, ptx_tld4_count());
}

/// What each kernel's PTX asks for, by kernel name: (kernel, component, dimension, AOFFI, DC,
/// sparse) of its first TLD4 (tests/cubins/kernels/*.ptx).
const SHAPES: &[(&str, Component, Dimension, bool, bool, bool)] = {
    use Component::*;
    use Dimension::*;
    &[
        ("g2d_r", R, Tex2D, false, false, false),
        ("g2d_g_aoffi", G, Tex2D, true, false, false),
        ("g2d_b_dc", B, Tex2D, false, true, false),
        ("g2d_a_aoffi_dc", A, Tex2D, true, true, false),
        ("g2d_int", G, Tex2D, false, false, false),
        ("g2d_sparse", R, Tex2D, false, false, true),
        ("g2d_guarded", R, Tex2D, false, false, false),
        ("a2d_r", R, Array2D, false, false, false),
        ("a2d_g_aoffi", G, Array2D, true, false, false),
        ("a2d_b_dc", B, Array2D, false, true, false),
        ("a2d_a_aoffi_dc", A, Array2D, true, true, false),
        ("cube_r", R, Cube, false, false, false),
        ("cube_g_dc", G, Cube, false, true, false),
        ("acube_r", R, ArrayCube, false, false, false),
        ("acube_a_dc", A, ArrayCube, false, true, false),
        ("acube_b_sparse", B, ArrayCube, false, false, true),
        ("ind_sampler", G, Tex2D, false, false, false),
        ("divergent_handle", R, Tex2D, false, false, false),
        ("four_components", R, Tex2D, false, false, false),
        ("one_gather", G, Tex2D, false, false, false),
    ]
};

#[test]
fn each_kernel_holds_the_tld4_its_ptx_asks_for() {
    let mut seen = 0;
    for name in CUBINS {
        let bytes = read(&format!("{name}.sm100.cubin"));
        let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
        for k in cubin.kernels() {
            let Some(&(_, comp, dim, aoffi, dc, sparse)) = SHAPES.iter().find(|s| s.0 == k.name())
            else {
                // g2d_tex_only: a tex fetch, no TLD4.
                assert_eq!(k.name(), "g2d_tex_only");
                assert_eq!(k.tld4s().count(), 0);
                continue;
            };
            let site = k.tld4s().next().unwrap_or_else(|| panic!("{}", k.name()));
            let insn = site.decoded.unwrap().insn;
            assert_eq!(insn.component, comp, "{}", k.name());
            assert_eq!(insn.dimension, dim, "{}", k.name());
            assert_eq!(insn.offset_mode == OffsetMode::Aoffi, aoffi, "{}", k.name());
            assert_eq!(insn.depth_compare, dc, "{}", k.name());
            assert_eq!(insn.pred_dst != Pred::PT, sparse, "{}", k.name());
            seen += 1;
        }
    }
    assert_eq!(seen, SHAPES.len());
}

#[test]
fn lookup_by_kernel_and_offset() {
    let bytes = read("gather_2d.sm100.cubin");
    let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
    let listed = listing("gather_2d");
    for l in listed.iter().filter(|l| l.is_tld4()) {
        let site = cubin.tld4_at(&l.kernel, l.offset).unwrap();
        assert_eq!(Some(site.word), l.word);
        assert_eq!(site.decoded.unwrap().text(), l.text);
    }
    let not = listed.iter().find(|l| !l.is_tld4()).unwrap();
    assert!(matches!(
        cubin.tld4_at(&not.kernel, not.offset),
        Err(tld4_cubin::LookupError::NotTld4 { .. })
    ));
}

#[test]
fn the_fat_binary_holds_the_same_sm100_cubin() {
    let single = read("one_gather.sm100.cubin");
    let fat = read("one_gather.fatbin");
    let images = extract(&fat, &[SM100]).unwrap();
    assert_eq!(images.len(), 1);
    // ELF entry 1 is sm_90's, entry 2 sm_100's (build.sh's order), then the PTX; cuobjdump
    // numbers ELF entries so, from 1.
    assert_eq!(images[0].origin.entry, Some(2));
    assert_eq!(images[0].target, Target::generic(SM100));
    assert_eq!(&images[0].bytes[..single.len()], &single[..]);
    let one = Cubin::parse(&single, &[SM100]).unwrap();
    let found = Cubin::parse(&images[0].bytes, &[SM100]).unwrap();
    assert_eq!(found.tld4s(), one.tld4s());
}

#[test]
fn containers_back_to_back_are_all_read() {
    // A linked executable's .nv_fatbin holds several containers one after the other (nvcc 13.5:
    // the CUDA runtime's own, then the program's); here two copies, with zero padding between.
    let fat = read("one_gather.fatbin");
    let mut two = fat.clone();
    two.extend_from_slice(&[0u8; 8]);
    two.extend_from_slice(&fat);
    let images = extract(&two, &[SM100]).unwrap();
    let origins: Vec<Origin> = images.iter().map(|i| i.origin.clone()).collect();
    // ELF entries are numbered over both containers: 1, 2, then 3, 4.
    let entry = |n| Origin {
        member: None,
        entry: Some(n),
    };
    assert_eq!(origins, [entry(2), entry(4)]);
    assert_eq!(images[0].bytes, images[1].bytes);
    // Garbage after a container is an error naming its byte.
    let mut bad = fat.clone();
    bad.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 1]);
    let e = extract(&bad, &[SM100]).unwrap_err();
    assert!(
        matches!(e, tld4_cubin::CubinError::Fatbin { offset, .. } if offset == fat.len() + 8),
        "{e}"
    );
}

/// Every sm_100 cubin of every shape nvcc builds (tests/cubins/shapes): its code sections are
/// named as nvdisasm names them (a device-linked cubin's second copy of a helper `...__1`),
/// in nvdisasm's order.
#[test]
fn code_sections_are_named_as_nvdisasm_names_them() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/shapes/");
    let mut saw_copy = false;
    for shape in [
        "gather_a.zstd.o",
        "gather_a.lz4.o",
        "gather_a.G.o",
        "gather_a.rdc.o",
        "gather_ab.dlink",
        "libgather.a",
        "libgather_multi.so",
    ] {
        let bytes = std::fs::read(format!("{dir}{shape}")).unwrap();
        let images = extract(&bytes, &[SM100]).unwrap();
        assert!(!images.is_empty(), "{shape}");
        for image in images {
            let n = image.origin.entry.unwrap();
            let sass = std::fs::read_to_string(format!("{dir}{shape}.{n}.sass")).unwrap();
            let listed: Vec<&str> = sass
                .lines()
                .filter_map(|l| l.trim().strip_prefix(".section"))
                .filter_map(|l| l.trim().split(',').next()?.strip_prefix(".text."))
                .collect();
            let cubin = Cubin::parse(&image.bytes, &[SM100]).unwrap();
            let names: Vec<&str> = cubin.kernels().iter().map(|k| k.name()).collect();
            assert_eq!(names, listed, "{shape}#{n}");
            saw_copy |= names.iter().any(|k| k.ends_with("__1"));
        }
    }
    assert!(
        saw_copy,
        "the device-linked cubin has a second copy of its helper"
    );
}

/// A file read by `read_file` is its bytes: truncating the file afterwards (another process
/// rewriting it while `tld4 scan` runs) changes nothing read and raises no signal (a mapped
/// file faulted with SIGBUS on the first access past its new end).
#[test]
fn a_file_truncated_after_it_was_read_lists_what_it_held() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/");
    for name in [
        "one_gather.zstd.fatbin",
        "shapes/libgather_multi.so",
        "shapes/libgather.a",
    ] {
        let path = format!("{dir}{name}");
        let sites = |image: tld4_cubin::Image<'_>| {
            let lines: Vec<String> = image
                .cubin
                .tld4s()
                .iter()
                .map(|s| {
                    format!(
                        "{}{} {} {:#x} {:032x}",
                        image.origin, image.target, s.kernel, s.offset, s.word
                    )
                })
                .collect();
            lines
        };
        let bytes = std::fs::read(&path).unwrap();
        let tmp = std::env::temp_dir().join(format!(
            "tld4-truncated-{}-{}",
            std::process::id(),
            name.replace('/', "_")
        ));
        std::fs::write(&tmp, &bytes).unwrap();
        let file = tld4_cubin::read_file(&tmp).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&tmp)
            .unwrap()
            .set_len(0)
            .unwrap();
        let mut read = Vec::new();
        tld4_cubin::visit(&file, &[SM100], |i| read.extend(sites(i.unwrap()))).unwrap();
        std::fs::remove_file(&tmp).unwrap();
        let mut plain = Vec::new();
        tld4_cubin::visit(&bytes, &[SM100], |i| plain.extend(sites(i.unwrap()))).unwrap();
        assert_eq!(read, plain, "{name}");
        assert!(!plain.is_empty(), "{name}");
    }
}
