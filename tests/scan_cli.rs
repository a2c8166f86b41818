//! `tld4 scan` and `tld4 disasm FILE.cubin` on the committed ptxas cubins (tests/cubins/),
//! against nvdisasm's committed listings of the same files.

use tld4_cubin::listing::parse_listing;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubins/");
const CUBINS: &[&str] = &["gather_2d", "gather_layers", "gather_handles", "one_gather"];

mod common;
use common::{text, tld4};

/// The lines `tld4 scan PATH` must print for a cubin, made from nvdisasm's listing: file,
/// architecture, kernel, offset as nvdisasm prints it, the word high half first, nvdisasm's
/// text.
fn expected_lines(path: &str, name: &str) -> Vec<String> {
    listing_lines(path, "sm_100", &format!("{DIR}{name}.sm100.sass"))
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
                "{file}\t{arch}\t{}\t0x{:04x}\t{:032x}\t{}",
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

#[test]
fn scan_reads_the_sm100_entry_of_a_fat_binary() {
    let fat = format!("{DIR}one_gather.fatbin");
    let out = tld4(&["scan", &fat]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let want: Vec<String> = expected_lines("X", "one_gather")
        .into_iter()
        .map(|l| l.replacen('X', &format!("{fat}#2"), 1))
        .collect();
    let got: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(got, want);
}

#[test]
fn scan_reports_each_bad_file_and_goes_on() {
    let good = format!("{DIR}one_gather.sm100.cubin");
    let sm90 = format!("{DIR}one_gather.sm90.cubin");
    let zstd = format!("{DIR}one_gather.zstd.fatbin");
    let missing = format!("{DIR}no-such.cubin");
    let out = tld4(&["scan", &sm90, &zstd, &missing, &good]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {sm90}: cubin built for sm_90")),
        "{stderr}"
    );
    assert!(stderr.contains("supported: sm_100"), "{stderr}");
    // The compressed fat binary is read; its sm_90 entry is skipped, and said so.
    assert!(
        stderr.contains(&format!("note: {zstd}: 1 entry for sm_90 skipped")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("error: cannot read {missing}: ")),
        "{stderr}"
    );
    let zstd_lines: Vec<String> = expected_lines("X", "one_gather")
        .into_iter()
        .map(|l| l.replacen('X', &format!("{zstd}#2"), 1))
        .collect();
    let mut want = zstd_lines;
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
    // A cubin for another architecture: an error naming it.
    let out = tld4(&["disasm", &format!("{DIR}one_gather.sm90.cubin")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("sm_90"), "{}", text(&out.stderr));
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

/// cuobjdump -sass's TLD4s of the sm_100 code: (function, offset, word, text), sorted.
fn cuobjdump_tld4s(shape: &str) -> Vec<(String, u64, u128, String)> {
    let text = std::fs::read_to_string(format!("{}{shape}.cuobjdump-sass", shapes_dir())).unwrap();
    let mut out = Vec::new();
    let (mut function, mut sm100) = (String::new(), false);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some(arch) = t.strip_prefix("code for ") {
            sm100 = arch.starts_with("sm_100");
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
            if sm100 {
                let word = (u128::from(hi) << 64) | u128::from(half(lo));
                let offset = u64::from_str_radix(off, 16).unwrap();
                out.push((function.clone(), offset, word, format!("{} ;", insn.trim())));
            }
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
        let mut skipped = 0;
        for e in &entries {
            if !e.arch.starts_with("sm_100") {
                skipped += 1;
                continue;
            }
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
        let stderr = text(&out.stderr);
        if skipped == 0 {
            assert_eq!(stderr, "", "{shape}");
        } else {
            assert!(
                stderr.contains(&format!(": {skipped} entries for ")),
                "{shape}: {stderr}"
            );
        }
        // cuobjdump -sass lists the same TLD4s (kernel, offset, word, text).
        let mut ours: Vec<(String, u64, u128, String)> = got
            .iter()
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                (
                    c[2].to_string(),
                    u64::from_str_radix(c[3].trim_start_matches("0x"), 16).unwrap(),
                    u128::from_str_radix(c[4], 16).unwrap(),
                    c[5].to_string(),
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
fn a_fat_binary_with_no_sm100_entry_is_a_note_and_a_bare_cubin_for_another_an_error() {
    // one_gather.fatbin with its sm_100 entry's architecture changed to 120.
    let mut bytes = std::fs::read(format!("{DIR}one_gather.fatbin")).unwrap();
    let at = 0xdc8 + 0x1c;
    assert_eq!(bytes[at], 100, "the sm_100 entry's architecture field");
    bytes[at] = 120;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("no_sm100.fatbin");
    std::fs::write(&file, &bytes).unwrap();
    let out = tld4(&["scan", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("2 entries for sm_90, sm_120 skipped"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(text(&out.stdout), "");
    let out = tld4(&["scan", &format!("{DIR}one_gather.sm90.cubin")]);
    assert_eq!(out.status.code(), Some(2));
}
