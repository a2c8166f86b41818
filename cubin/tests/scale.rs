//! A cubin of 150,000 code sections (a shipped library's device-linked cubin has as many: one
//! took 60 s while names were compared pairwise) parses in time linear in the sections: the
//! bound is a ratio of two sizes' times, never an absolute timeout.

use std::time::{Duration, Instant};

use tld4_cubin::{Cubin, LookupError, SM100};

/// ELF64 section header size (System V gABI).
const SHDR: usize = 64;

/// A cubin (ELF64, EM_CUDA, ABI 8, sm_100's e_flags as ptxas 13.5 writes them) with `n` code
/// sections of one 16-byte instruction each, every name used twice (`.text.k7` twice), as a
/// device-linked cubin's copies of a helper are. More than 0xff00 sections: e_shnum is 0 and
/// the count is section 0's sh_size (the gABI's extended numbering).
fn cubin_with_sections(n: usize) -> Vec<u8> {
    let mut strtab = b"\0.shstrtab\0".to_vec();
    let mut names = Vec::with_capacity(n);
    for i in 0..n {
        if i % 2 == 0 {
            names.push(strtab.len() as u32);
            strtab.extend_from_slice(format!(".text.k{}\0", i / 2).as_bytes());
        } else {
            names.push(names[i - 1]);
        }
    }
    let code_at = 64usize;
    let strtab_at = code_at + 16;
    let shoff = (strtab_at + strtab.len()).div_ceil(8) * 8;
    let count = n + 2;
    let mut data = vec![0u8; shoff + count * SHDR];
    data[..4].copy_from_slice(b"\x7fELF");
    data[4] = 2; // ELFCLASS64
    data[5] = 1; // little-endian
    data[6] = 1; // EV_CURRENT
    data[8] = 8; // EI_ABIVERSION: the CUDA ABI ptxas 13.5 writes
    data[16..18].copy_from_slice(&1u16.to_le_bytes()); // ET_REL
    data[18..20].copy_from_slice(&190u16.to_le_bytes()); // EM_CUDA
    data[20..24].copy_from_slice(&1u32.to_le_bytes());
    data[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
    data[0x30..0x34].copy_from_slice(&0x0600_6402u32.to_le_bytes());
    data[0x34..0x36].copy_from_slice(&64u16.to_le_bytes());
    data[0x3a..0x3c].copy_from_slice(&(SHDR as u16).to_le_bytes());
    data[0x3c..0x3e].copy_from_slice(&0u16.to_le_bytes()); // e_shnum: see section 0
    data[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes()); // e_shstrndx
    data[strtab_at..strtab_at + strtab.len()].copy_from_slice(&strtab);
    let mut header = |i: usize, name: u32, kind: u32, offset: usize, size: usize| {
        let h = &mut data[shoff + i * SHDR..shoff + (i + 1) * SHDR];
        h[0..4].copy_from_slice(&name.to_le_bytes());
        h[4..8].copy_from_slice(&kind.to_le_bytes());
        h[0x18..0x20].copy_from_slice(&(offset as u64).to_le_bytes());
        h[0x20..0x28].copy_from_slice(&(size as u64).to_le_bytes());
    };
    header(0, 0, 0, 0, count); // sh_size of section 0: the section count
    header(1, 1, 3, strtab_at, strtab.len()); // SHT_STRTAB
    for (i, &name) in names.iter().enumerate() {
        header(i + 2, name, 1, code_at, 16); // SHT_PROGBITS
    }
    data
}

/// The fastest of three parses (the least disturbed by other work on the machine).
fn parse_time(data: &[u8], n: usize) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let c = Cubin::parse(data, &[SM100]).unwrap();
            assert_eq!(c.kernels().len(), n);
            t.elapsed()
        })
        .min()
        .unwrap()
}

#[test]
fn a_cubin_of_150000_code_sections_parses_in_linear_time() {
    let (small, large) = (15_000, 150_000);
    let big = cubin_with_sections(large);
    let c = Cubin::parse(&big, &[SM100]).unwrap();
    let last = &c.kernels()[large - 2..];
    let last_names: Vec<&str> = last.iter().map(|k| k.name()).collect();
    assert_eq!(last_names, ["k74999", "k74999__1"]);
    assert!(matches!(
        c.kernel("k74999"),
        Err(LookupError::Ambiguous { candidates, .. }) if candidates == ["k74999", "k74999__1"]
    ));
    assert_eq!(c.kernel("k74999__1").unwrap().name(), "k74999__1");
    let t_small = parse_time(&cubin_with_sections(small), small);
    let t_large = parse_time(&big, large);
    // Ten times the sections: about ten times the time when linear, a hundred when quadratic.
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-6);
    assert!(
        ratio < 35.0,
        "{large} sections took {ratio:.1} times as long as {small} ({t_large:?} against {t_small:?})"
    );
}
