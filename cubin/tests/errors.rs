//! Typed errors: other architectures, compressed and foreign entries, files that are no cubin,
//! and lookups that miss.

use object::read::elf::{ElfFile64, FileHeader};
use object::{LittleEndian, Object};
use tld4_cubin::{extract, visit, Cubin, CubinError, ErrorKind, LookupError, SmArch, SM100, SM90};

fn open(data: &[u8], supported: &[SmArch]) -> Result<Vec<tld4_cubin::Extracted>, CubinError> {
    extract(data, supported)
}
use tld4_decoder::DecodeError;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/cubins/");

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn a_cubin_for_another_architecture_names_it_and_what_is_supported() {
    for (file, arch) in [
        ("one_gather.sm90.cubin", 90),
        ("one_gather.sm103.cubin", 103),
    ] {
        let bytes = read(file);
        let e = open(&bytes, &[SM100]).unwrap_err();
        assert!(
            matches!(e, CubinError::UnsupportedArch { found, .. } if found == SmArch(arch)),
            "{file}: {e}"
        );
        assert_eq!(e.kind(), ErrorKind::NotModeled);
        let msg = e.to_string();
        assert!(msg.contains(&format!("built for sm_{arch}")), "{msg}");
        assert!(msg.contains("supported: sm_100"), "{msg}");
    }
}

#[test]
fn the_architecture_check_is_a_parameter() {
    // ptxas 11.8's sm_90 cubin (ELF ABI 7: the architecture in the low byte of e_flags).
    let probe = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../oracles/hw-probe/kernels/tld4_probe.sm90.cubin"
    ))
    .unwrap();
    assert!(matches!(
        Cubin::parse(&probe, &[SM100]),
        Err(CubinError::UnsupportedArch { found: SM90, .. })
    ));
    let c = Cubin::parse(&probe, &[SM90]).unwrap();
    assert_eq!(c.arch(), SM90);
    assert!(c.kernel("raw").is_ok());
    // ptxas 13.5's sm_90 cubin (ABI 8: the architecture in bits 15:8).
    let new = read("one_gather.sm90.cubin");
    assert_eq!(Cubin::parse(&new, &[SM90]).unwrap().arch(), SM90);
}

#[test]
fn a_compressed_sm100_entry_is_decompressed_and_other_architectures_are_counted() {
    let plain = open(&read("one_gather.fatbin"), &[SM100]).unwrap();
    let zstd = read("one_gather.zstd.fatbin");
    let packed = open(&zstd, &[SM100]).unwrap();
    assert_eq!((plain.len(), packed.len()), (1, 1));
    assert_eq!(plain[0].origin, packed[0].origin);
    // The uncompressed entry's payload is padded to 8 bytes; the decompressed one is not.
    let single = read("one_gather.sm100.cubin");
    assert!(
        packed[0].bytes == single,
        "the decompressed cubin is ptxas's"
    );
    let (a, b) = (
        Cubin::parse(&plain[0].bytes, &[SM100]).unwrap(),
        Cubin::parse(&packed[0].bytes, &[SM100]).unwrap(),
    );
    assert_eq!(a.tld4s(), b.tld4s());
    assert_eq!(a.tld4s().len(), 1);
    let visited = visit(&zstd, &[SM100], |_| {}).unwrap();
    assert_eq!((visited.images, visited.errors), (1, 0));
    assert_eq!(visited.skipped.to_string(), "1 entry for sm_90 skipped");
}

#[test]
fn a_fat_binary_without_the_architecture_counts_its_entries() {
    let bytes = read("one_gather.fatbin");
    let e = open(&bytes, &[SmArch(120)]).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, CubinError::NoSupportedCubin { .. }));
    assert_eq!(e.kind(), ErrorKind::NotModeled);
    assert!(msg.contains("2 entries for sm_90, sm_100 skipped"), "{msg}");
    let zstd = read("one_gather.zstd.fatbin");
    let msg = open(&zstd, &[SmArch(120)]).unwrap_err().to_string();
    assert!(msg.contains("2 entries for sm_90, sm_100 skipped"), "{msg}");
}

#[test]
fn files_that_hold_no_cubin() {
    let readme = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let e = open(&readme, &[SM100]).unwrap_err();
    assert!(matches!(e, CubinError::NotRecognized { .. }));
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert!(e.to_string().contains("23 20 74 6c"), "{e}");
    // This test program: a host ELF file with no device code.
    let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
    let e = open(&me, &[SM100]).unwrap_err();
    assert!(matches!(e, CubinError::NoDeviceCode { .. }), "{e}");
    assert!(e.to_string().contains(".nv_fatbin"), "{e}");
    // Cut short: a damaged ELF file, and a damaged fat binary naming the byte.
    let cubin = read("one_gather.sm100.cubin");
    let e = open(&cubin[..100], &[SM100]).unwrap_err();
    assert!(matches!(e, CubinError::Elf { .. }), "{e}");
    let fat = read("one_gather.fatbin");
    let e = open(&fat[..fat.len() - 8], &[SM100]).unwrap_err();
    assert!(matches!(e, CubinError::Fatbin { offset: 0, .. }), "{e}");
    assert!(e.to_string().contains("past the end"), "{e}");
}

#[test]
fn lookups_that_miss_say_why() {
    let bytes = read("gather_2d.sm100.cubin");
    let c = Cubin::parse(&bytes, &[SM100]).unwrap();
    let e = c.tld4_at("nope", 0).unwrap_err();
    assert!(
        matches!(&e, LookupError::NoSuchKernel { available, .. } if available.contains(&"g2d_r".to_string()))
    );
    assert!(e.to_string().contains("g2d_r"), "{e}");
    assert!(matches!(
        c.tld4_at("g2d_r", 0x94),
        Err(LookupError::Misaligned { offset: 0x94, .. })
    ));
    let size = c.kernel("g2d_r").unwrap().code().len() as u64;
    assert!(matches!(
        c.tld4_at("g2d_r", size),
        Err(LookupError::PastEnd { .. })
    ));
    // Offset 0 of every ptxas kernel: LDC R1 (the stack pointer), opcode 0xb82.
    assert!(matches!(
        c.tld4_at("g2d_r", 0),
        Err(LookupError::NotTld4 { opcode: 0xb82, .. })
    ));
    assert_eq!(c.tld4_at("g2d_r", 0x90).unwrap().offset, 0x90);
}

/// Where kernel `k`'s code lies in the file.
fn code_range(bytes: &[u8], k: &str) -> std::ops::Range<usize> {
    let c = Cubin::parse(bytes, &[SM100]).unwrap();
    let k = c.kernel(k).unwrap();
    let at = k.file_offset() as usize;
    at..at + k.code().len()
}

#[test]
fn an_illegal_tld4_word_is_listed_with_its_error_never_dropped() {
    let mut bytes = read("one_gather.sm100.cubin");
    let code = code_range(&bytes, "one_gather");
    // Clear bit 91 (bit 27 of the high half, byte 11 of the word) of the TLD4 at 0x90.
    bytes[code.start + 0x90 + 11] &= !(1 << 3);
    let c = Cubin::parse(&bytes, &[SM100]).unwrap();
    let sites = c.tld4s();
    assert_eq!(sites.len(), 1);
    assert_eq!(sites[0].decoded, Err(DecodeError::Bit91Clear));
    assert!(matches!(
        c.tld4_at("one_gather", 0x90),
        Err(LookupError::IllegalTld4 {
            source: DecodeError::Bit91Clear,
            ..
        })
    ));
}

#[test]
fn a_code_section_that_is_not_whole_instructions_is_an_error() {
    let mut bytes = read("one_gather.sm100.cubin");
    // The section header's sh_size (Elf64_Shdr at byte 0x20, gABI), found through `object`.
    let at = {
        let f = ElfFile64::<LittleEndian>::parse(&bytes[..]).unwrap();
        let s = f.section_by_name(".text.one_gather").unwrap();
        let hdr = s.elf_section_header() as *const _ as usize;
        let shoff = f.elf_header().e_shoff(LittleEndian) as usize;
        assert!(hdr > bytes.as_ptr() as usize + shoff - 1);
        hdr - bytes.as_ptr() as usize + 0x20
    };
    let size = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    bytes[at..at + 8].copy_from_slice(&(size - 4).to_le_bytes());
    let e = Cubin::parse(&bytes, &[SM100]).unwrap_err();
    assert!(
        matches!(&e, CubinError::CodeSize { kernel, size: s } if kernel == "one_gather" && *s == size - 4),
        "{e}"
    );
}

/// Found by the fuzzer: a cubin whose section headers name two code sections alike listed a
/// TLD4 of the second one that `tld4_at` could not find (it looked in the first). Now the
/// second is named as nvdisasm names it (`one_gather__1`) and found by that name, and the
/// shared name is refused with both names.
#[test]
fn two_code_sections_of_one_name_are_named_apart() {
    let mut data = read("one_gather.sm100.cubin");
    let shoff = u64::from_le_bytes(data[0x28..0x30].try_into().unwrap()) as usize;
    let shentsize = u16::from_le_bytes(data[0x3a..0x3c].try_into().unwrap()) as usize;
    let shnum = u16::from_le_bytes(data[0x3c..0x3e].try_into().unwrap()) as usize;
    let text = {
        let file = ElfFile64::<LittleEndian>::parse(&*data).unwrap();
        file.sections()
            .find(|s| {
                object::ObjectSection::name(s)
                    .unwrap()
                    .starts_with(".text.")
            })
            .map(|s| object::ObjectSection::index(&s).0)
            .unwrap()
    };
    let other = if text == shnum - 1 {
        shnum - 2
    } else {
        shnum - 1
    };
    let header = data[shoff + text * shentsize..shoff + (text + 1) * shentsize].to_vec();
    data[shoff + other * shentsize..shoff + (other + 1) * shentsize].copy_from_slice(&header);
    let c = Cubin::parse(&data, &[SM100]).unwrap();
    let names: Vec<&str> = c.kernels().iter().map(|k| k.name()).collect();
    assert_eq!(names, ["one_gather", "one_gather__1"]);
    let e = c.kernel("one_gather").unwrap_err();
    assert!(
        matches!(&e, LookupError::Ambiguous { kernel, candidates }
            if kernel == "one_gather" && candidates == &["one_gather", "one_gather__1"]),
        "{e}"
    );
    // The copy's TLD4 is found by its own name; the shared name finds neither.
    let sites = c.tld4s();
    assert_eq!(sites.len(), 2);
    assert_eq!(
        c.tld4_at("one_gather__1", sites[1].offset).unwrap(),
        sites[1]
    );
    assert!(matches!(
        c.tld4_at("one_gather", sites[0].offset),
        Err(LookupError::Ambiguous { .. })
    ));
}

/// The zstd fat binary with its sm_100 entry's header edited: (byte offset in the entry
/// header, new little-endian value). The entry header is at 0x440 (build.sh's order: sm_90 ELF
/// at 0x10, then sm_100's).
fn zstd_with(edits: &[(usize, u64, usize)]) -> Vec<u8> {
    let mut bytes = read("one_gather.zstd.fatbin");
    let at = 0x440;
    assert_eq!(bytes[at + 0x1c], 100, "the sm_100 entry's header");
    for &(off, value, width) in edits {
        bytes[at + off..at + off + width].copy_from_slice(&value.to_le_bytes()[..width]);
    }
    bytes
}

/// The error passed for the one sm_100 entry, with the entries skipped.
fn entry_error(bytes: &[u8]) -> (CubinError, String) {
    let mut errors = Vec::new();
    let visited = visit(bytes, &[SM100], |r| {
        if let Err(e) = r {
            errors.push(e)
        }
    })
    .unwrap();
    assert_eq!((visited.images, errors.len()), (0, 1));
    (errors.remove(0), visited.skipped.to_string())
}

#[test]
fn a_decompression_bomb_is_an_error_naming_the_entry_and_the_rest_is_still_read() {
    // Uncompressed size (0x38) of 2^40 bytes: refused before anything is allocated.
    let (e, skipped) = entry_error(&zstd_with(&[(0x38, 1 << 40, 8)]));
    let msg = e.to_string();
    assert!(
        matches!(e, CubinError::Decompress { method: "zstd", .. }),
        "{msg}"
    );
    assert!(
        msg.starts_with("fat-binary entry #2 (sm_100): zstd payload: "),
        "{msg}"
    );
    assert!(
        msg.contains("1099511627776 bytes, above the 1073741824"),
        "{msg}"
    );
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert_eq!(skipped, "1 entry for sm_90 skipped");
    // A size the zstd frame contradicts (the frame states 5322 bytes).
    let (e, _) = entry_error(&zstd_with(&[(0x38, 5000, 8)]));
    assert!(
        e.to_string()
            .contains("the zstd frame states 5322 bytes, the entry header 5000"),
        "{e}"
    );
    // Marked LZ4 (flag 0x2000 instead of 0x8000): more than LZ4 can expand 1391 bytes to.
    let (e, _) = entry_error(&zstd_with(&[(0x28, 0x0100_2011, 8), (0x38, 1 << 29, 8)]));
    assert!(
        e.to_string()
            .contains("more than LZ4 can expand to (255 times)"),
        "{e}"
    );
    // Marked LZ4 with a plausible size: the zstd bytes are no LZ4 block of that size.
    let (e, _) = entry_error(&zstd_with(&[(0x28, 0x0100_2011, 8)]));
    assert!(
        matches!(e, CubinError::Decompress { method: "LZ4", .. }),
        "{e}"
    );
    // A stated size of 0.
    let (e, _) = entry_error(&zstd_with(&[(0x38, 0, 8)]));
    assert!(e.to_string().contains("uncompressed size of 0"), "{e}");
}

#[test]
fn a_pre_sm100_form_is_found_and_printed_with_its_architectures_tables() {
    // ptxas 13.5 for sm_75: g2d_guarded's TLD4 at 0xa0 is form 0xb63, the handle from the
    // constant bank (nvdisasm's listing, tests/cubins/gather_2d.sm75.sass, line 83).
    let bytes = read("gather_2d.sm75.cubin");
    let listing = std::fs::read_to_string(format!(
        "{}/../tests/cubins/gather_2d.sm75.sass",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let c = Cubin::parse(&bytes, tld4_cubin::supported()).unwrap();
    assert_eq!(c.tables(), tld4_decoder::Arch::Sm75);
    let site = c
        .tld4s()
        .into_iter()
        .find(|s| s.kernel == "g2d_guarded")
        .unwrap();
    assert_eq!(site.offset, 0xa0);
    let insn = site.decoded.as_ref().expect("0xb63 is modeled");
    assert_eq!(site.word & 0xfff, 0xb63);
    let text = insn.text();
    assert!(
        listing
            .lines()
            .any(|l| l.contains("/*00a0*/") && l.contains(&text)),
        "{text}"
    );
    // Looked up by kernel and offset, the same instruction.
    let at = c.tld4_at("g2d_guarded", 0xa0).unwrap();
    assert_eq!(at.word, site.word);
    assert_eq!(at.decoded.as_ref().map(|i| i.text()), Ok(text));
}
