//! `tld4 scan` and `tld4 disasm FILE.cubin` on the committed ptxas cubins (tests/cubins/),
//! against nvdisasm's committed listings of the same files.

use tld4_cubin::listing::parse_listing;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubins/");
const CUBINS: &[&str] = &["gather_2d", "gather_layers", "gather_handles", "one_gather"];

use crate::common;
use common::{text, tld4};

/// The lines `tld4 scan PATH` must print for a cubin, made from nvdisasm's listing: file,
/// kernel, offset as nvdisasm prints it, the word high half first, nvdisasm's text, and the
/// architecture last.
fn expected_lines(path: &str, name: &str) -> Vec<String> {
    listing_lines(path, "sm_100", &format!("{DIR}{name}.sm100.sass"))
}

/// A copy of a committed cubin with its ELF architecture changed to `sm` (ABI 8: e_flags
/// bits 15:8), in `dir`: a cubin of an architecture the decoder does not know.
fn cubin_for(dir: &std::path::Path, sm: u8) -> String {
    let mut bytes = std::fs::read(format!("{DIR}one_gather.sm90.cubin")).unwrap();
    // e_flags is at byte 0x30 of an ELF64 header; sm_90 is 0x5a in bits 15:8.
    assert_eq!(bytes[0x31], 90);
    bytes[0x31] = sm;
    let file = dir.join(format!("one_gather.sm{sm}.cubin"));
    std::fs::write(&file, &bytes).unwrap();
    file.to_str().unwrap().to_string()
}

/// The TLD4 lines of one nvdisasm listing, as `tld4 scan` prints them for a cubin whose file
/// column is `file`.
fn listing_lines(file: &str, arch: &str, sass: &str) -> Vec<String> {
    let listing = std::fs::read_to_string(sass).unwrap();
    let mut lines: Vec<String> = parse_listing(&listing)
        .unwrap()
        .into_iter()
        .filter(|l| l.is_tld4())
        .map(|l| {
            format!(
                "{file}\t{}\t0x{:04x}\t{:032x}\t{}\t{arch}",
                l.kernel,
                l.offset,
                l.word.unwrap(),
                l.text
            )
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn scan_prints_exactly_the_tld4_lines_of_nvdisasms_listing() {
    let paths: Vec<String> = CUBINS
        .iter()
        .map(|n| format!("{DIR}{n}.sm100.cubin"))
        .collect();
    let args: Vec<&str> = std::iter::once("scan")
        .chain(paths.iter().map(String::as_str))
        .collect();
    let out = tld4(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for (path, name) in paths.iter().zip(CUBINS) {
        let mut got: Vec<String> = stdout
            .lines()
            .filter(|l| l.split('\t').next() == Some(path.as_str()))
            .map(str::to_string)
            .collect();
        got.sort();
        let want = expected_lines(path, name);
        assert!(!want.is_empty(), "{name}: no TLD4 in the listing");
        assert_eq!(got, want, "{name}");
    }
    assert_eq!(text(&out.stderr), "");
}

/// The lines of a fat binary's two entries: sm_90 (ELF entry 1) and sm_100 (2).
fn fatbin_lines(fat: &str) -> Vec<String> {
    let mut want = listing_lines(
        &format!("{fat}#1"),
        "sm_90",
        &format!("{DIR}one_gather.sm90.sass"),
    );
    want.extend(expected_lines(&format!("{fat}#2"), "one_gather"));
    want
}

#[test]
fn scan_reads_every_entry_of_a_fat_binary_with_its_own_architecture() {
    let fat = format!("{DIR}one_gather.fatbin");
    let out = tld4(&["scan", &fat]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let got: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(got, fatbin_lines(&fat));
    // --arch selects: the sm_90 entry only, the other told on standard error.
    let out = tld4(&["scan", "--arch", "sm_90", &fat]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(got, fatbin_lines(&fat)[..1].to_vec());
    assert!(
        text(&out.stderr).contains("1 entry for sm_100 skipped"),
        "{}",
        text(&out.stderr)
    );
    // sm_100a selects no entry of this file (its sm_100 entry is plain): a note, exit 0.
    let out = tld4(&["scan", "--arch", "sm_100a", &fat]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert!(
        text(&out.stderr).contains("not selected by --arch"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn scan_reports_each_bad_file_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let good = format!("{DIR}one_gather.sm100.cubin");
    let sm70 = cubin_for(dir.path(), 70);
    let zstd = format!("{DIR}one_gather.zstd.fatbin");
    let missing = format!("{DIR}no-such.cubin");
    let out = tld4(&["scan", &sm70, &zstd, &missing, &good]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {sm70}: cubin built for sm_70")),
        "{stderr}"
    );
    assert!(
        stderr.contains("supported: sm_75, sm_80, sm_86, sm_87, sm_88, sm_89, sm_90, sm_100"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("error: cannot read {missing}: ")),
        "{stderr}"
    );
    // The compressed fat binary is read, both entries.
    let mut want = fatbin_lines(&zstd);
    want.extend(expected_lines(&good, "one_gather"));
    assert_eq!(text(&out.stdout).lines().collect::<Vec<_>>(), want);
}

#[test]
fn disasm_of_a_cubin_lists_its_tld4s_by_kernel() {
    let path = format!("{DIR}gather_2d.sm100.cubin");
    let out = tld4(&["disasm", &path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let listing = std::fs::read_to_string(format!("{DIR}gather_2d.sm100.sass")).unwrap();
    let tld4s: Vec<_> = parse_listing(&listing)
        .unwrap()
        .into_iter()
        .filter(|l| l.is_tld4())
        .collect();
    for l in &tld4s {
        let header = format!(".text.{}:", l.kernel);
        let line = format!("        /*{:04x}*/ {}", l.offset, l.text);
        let h = stdout
            .find(&header)
            .unwrap_or_else(|| panic!("{header}\n{stdout}"));
        assert!(stdout[h..].contains(&line), "{line}\n{stdout}");
    }
    // One header per kernel with a TLD4 and one line per TLD4, nothing else.
    let kernels: std::collections::BTreeSet<_> = tld4s.iter().map(|l| &l.kernel).collect();
    assert_eq!(
        stdout.lines().count(),
        kernels.len() + tld4s.len(),
        "{stdout}"
    );
    // --fields adds each field's table.
    let out = tld4(&["disasm", "--fields", &path]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("dimension"), "{stdout}");
    assert!(stdout.contains("    component"), "{stdout}");
    // A cubin of another architecture: its TLD4s as that architecture's nvdisasm prints them.
    let out = tld4(&["disasm", &format!("{DIR}one_gather.sm90.cubin")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let listing = std::fs::read_to_string(format!("{DIR}one_gather.sm90.sass")).unwrap();
    let l = parse_listing(&listing).unwrap();
    let l = l.iter().find(|l| l.is_tld4()).unwrap();
    assert_eq!(
        text(&out.stdout),
        format!(
            ".text.{}:\n        /*{:04x}*/ {}\n",
            l.kernel, l.offset, l.text
        )
    );
    // One of an architecture the decoder does not know: an error naming it.
    let dir = tempfile::tempdir().unwrap();
    let out = tld4(&["disasm", &cubin_for(dir.path(), 70)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("sm_70"), "{}", text(&out.stderr));
}

/// The shapes nvcc builds (tests/cubins/build.sh): compressed, debug, relocatable, device-linked,
/// archived and multi-architecture files.
const SHAPES: &[&str] = &[
    "gather_a.zstd.o",
    "gather_a.lz4.o",
    "gather_a.G.o",
    "gather_a.rdc.o",
    "gather_ab.dlink",
    "libgather.a",
    "libgather_multi.so",
];

/// Where the shapes and their listings are: tests/cubins/shapes, or `TLD4_SHAPES_DIR` (set by
/// tests/cubins/run-live.sh to the shapes it has just rebuilt with nvcc, so that the same test
/// compares `tld4 scan` with today's tools).
fn shapes_dir() -> String {
    match std::env::var("TLD4_SHAPES_DIR") {
        Ok(d) => format!("{}/", d.trim_end_matches('/')),
        Err(_) => format!("{DIR}shapes/"),
    }
}

/// One ELF entry of `cuobjdump -lelf`: its number, the archive member holding it, and the
/// architecture in the name cuobjdump gives its cubin (`libgather.2.sm_100a.cubin`).
struct LelfEntry {
    number: u32,
    member: Option<String>,
    arch: String,
}

fn lelf(shape: &str) -> Vec<LelfEntry> {
    let text = std::fs::read_to_string(format!("{}{shape}.lelf", shapes_dir())).unwrap();
    let mut member = None;
    let mut out = Vec::new();
    for line in text.lines() {
        if let Some(m) = line.strip_prefix("member ") {
            // `member libgather.a:gather_a.o:`
            let m = m.trim_end_matches(':');
            member = m.rsplit_once(':').map(|(_, name)| name.to_string());
        } else if let Some(rest) = line.strip_prefix("ELF file") {
            let (n, name) = rest.split_once(':').unwrap();
            let arch = name.trim().trim_end_matches(".cubin");
            let arch = arch.rsplit_once('.').map_or(arch, |(_, a)| a);
            out.push(LelfEntry {
                number: n.trim().parse().unwrap(),
                member: member.clone(),
                arch: arch.to_string(),
            });
        }
    }
    out
}

/// cuobjdump -sass's TLD4s of the code of every architecture: (function, offset, word,
/// text), sorted.
fn cuobjdump_tld4s(shape: &str) -> Vec<(String, u64, u128, String)> {
    let text = std::fs::read_to_string(format!("{}{shape}.cuobjdump-sass", shapes_dir())).unwrap();
    let mut out = Vec::new();
    let mut function = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t.starts_with("code for ") {
            continue;
        } else if let Some(f) = t.strip_prefix("Function : ") {
            function = f.to_string();
        } else if let Some(rest) = t.strip_prefix("/*") {
            let (off, body) = rest.split_once("*/").unwrap();
            let (insn, lo) = body.split_once(';').unwrap();
            let half = |s: &str| {
                let h = s
                    .trim()
                    .trim_start_matches("/*")
                    .trim_end_matches("*/")
                    .trim();
                u64::from_str_radix(h.trim_start_matches("0x"), 16).unwrap()
            };
            let hi = half(lines.next().unwrap());
            let word = (u128::from(hi) << 64) | u128::from(half(lo));
            let offset = u64::from_str_radix(off, 16).unwrap();
            out.push((function.clone(), offset, word, format!("{} ;", insn.trim())));
        }
    }
    out.sort();
    out
}

#[test]
fn scan_lists_what_nvdisasm_and_cuobjdump_list_in_every_shape_nvcc_builds() {
    for shape in SHAPES {
        let path = format!("{}{shape}", shapes_dir());
        let entries = lelf(shape);
        let mut want = Vec::new();
        for e in &entries {
            let member = e
                .member
                .as_ref()
                .map(|m| format!("({m})"))
                .unwrap_or_default();
            let file = format!("{path}{member}#{}", e.number);
            let sass = format!("{}{shape}.{}.sass", shapes_dir(), e.number);
            want.extend(listing_lines(&file, &e.arch, &sass));
        }
        want.sort();
        assert!(!want.is_empty(), "{shape}: nvdisasm lists no TLD4");
        let out = tld4(&["scan", &path]);
        assert!(out.status.success(), "{shape}: {}", text(&out.stderr));
        let mut got: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
        got.sort();
        assert_eq!(got, want, "{shape}");
        // Every entry is read with its own architecture: nothing skipped.
        assert_eq!(text(&out.stderr), "", "{shape}");
        // cuobjdump -sass lists the same TLD4s (kernel, offset, word, text).
        let mut ours: Vec<(String, u64, u128, String)> = got
            .iter()
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (
                    c[1].to_string(),
                    u64::from_str_radix(c[2].trim_start_matches("0x"), 16).unwrap(),
                    u128::from_str_radix(c[3], 16).unwrap(),
                    c[4].to_string(),
                )
            })
            .collect();
        ours.sort();
        assert_eq!(
            ours,
            cuobjdump_tld4s(shape),
            "{shape}: against cuobjdump -sass"
        );
    }
}

#[test]
fn devices_and_fifos_are_refused_without_reading_them() {
    let out = tld4(&["scan", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("/dev/zero: it is a character device, not a regular file"),
        "{}",
        text(&out.stderr)
    );
    let out = tld4(&["disasm", "/dev/zero"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("it is a character device"),
        "{}",
        text(&out.stderr)
    );
    // A FIFO with no writer: opening it would block; it is refused at once.
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let fifo = fifo.to_str().unwrap();
    for cmd in ["scan", "disasm"] {
        let out = tld4(&[cmd, fifo]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(
            text(&out.stderr).contains("it is a FIFO, not a regular file"),
            "{cmd}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn entries_of_unknown_architectures_are_a_note_and_a_bare_cubin_of_one_an_error() {
    // one_gather.fatbin with its sm_100 entry's architecture changed to 70 (Volta: not an
    // architecture of nvdisasm 13.5, so not of the decoder).
    let mut bytes = std::fs::read(format!("{DIR}one_gather.fatbin")).unwrap();
    let at = 0xdc8 + 0x1c;
    assert_eq!(bytes[at], 100, "the sm_100 entry's architecture field");
    bytes[at] = 70;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sm70.fatbin");
    std::fs::write(&file, &bytes).unwrap();
    let file = file.to_str().unwrap();
    let out = tld4(&["scan", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("1 entry for sm_70 skipped"),
        "{}",
        text(&out.stderr)
    );
    let got: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(got, fatbin_lines(file)[..1].to_vec());
    // Only that entry selected: nothing to read, a note.
    let out = tld4(&["scan", "--arch", "sm_100", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    let out = tld4(&["scan", &cubin_for(dir.path(), 70)]);
    assert_eq!(out.status.code(), Some(2));
}
