//! Typed errors: other architectures, compressed and foreign entries, files that are no cubin,
//! and lookups that miss.

use object::read::elf::{ElfFile64, FileHeader};
use object::{LittleEndian, Object};
use tld4_cubin::{open, Cubin, CubinError, ErrorKind, LookupError, SmArch, SM100, SM90};
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
        "/../tests/hw-probe/kernels/tld4_probe.sm90.cubin"
    ))
    .unwrap();
    assert!(matches!(
        Cubin::parse(&probe, &[SM100]),
        Err(CubinError::UnsupportedArch { found: SM90, .. })
    ));
    let c = Cubin::parse(&probe, &[SM90]).unwrap();
    assert_eq!(c.arch(), SM90);
    assert!(c.kernel("raw").is_some());
    // ptxas 13.5's sm_90 cubin (ABI 8: the architecture in bits 15:8).
    let new = read("one_gather.sm90.cubin");
    assert_eq!(Cubin::parse(&new, &[SM90]).unwrap().arch(), SM90);
}

#[test]
fn a_compressed_sm100_entry_says_how_to_extract_the_cubin() {
    let bytes = read("one_gather.zstd.fatbin");
    let e = open(&bytes, &[SM100]).unwrap_err();
    assert!(
        matches!(
            e,
            CubinError::Compressed {
                index: 1,
                arch: SM100,
                method: "zstd",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.kind(), ErrorKind::NotModeled);
    assert!(e.to_string().contains("cuobjdump -xelf all"), "{e}");
}

#[test]
fn a_fat_binary_without_the_architecture_lists_its_entries() {
    let bytes = read("one_gather.fatbin");
    let e = open(&bytes, &[SmArch(120)]).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, CubinError::NoSupportedCubin { .. }));
    assert!(msg.contains("sm_90 ELF, sm_100 ELF, sm_90 PTX"), "{msg}");
    let zstd = read("one_gather.zstd.fatbin");
    let msg = open(&zstd, &[SmArch(120)]).unwrap_err().to_string();
    assert!(
        msg.contains("sm_90 ELF (zstd), sm_100 ELF (zstd), sm_90 PTX (zstd)"),
        "{msg}"
    );
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
/// TLD4 of the second one that `tld4_at` could not find (it looks in the first); refused now.
#[test]
fn two_code_sections_of_one_name_are_refused() {
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
    let e = Cubin::parse(&data, &[SM100]).unwrap_err();
    assert!(
        matches!(&e, CubinError::DuplicateKernel { kernel } if kernel == "one_gather"),
        "{e}"
    );
    assert_eq!(e.kind(), ErrorKind::Invalid);
}
