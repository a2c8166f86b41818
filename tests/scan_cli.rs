//! `tld4 scan` and `tld4 disasm FILE.cubin` on the committed ptxas cubins (tests/cubins/),
//! against nvdisasm's committed listings of the same files.

use tld4_cubin::listing::parse_listing;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cubins/");
const CUBINS: &[&str] = &["gather_2d", "gather_layers", "gather_handles", "one_gather"];

mod common;
use common::{text, tld4};

/// The lines `tld4 scan PATH` must print for a cubin, made from nvdisasm's listing: file,
/// kernel, offset as nvdisasm prints it, the word high half first, nvdisasm's text.
fn expected_lines(path: &str, name: &str) -> Vec<String> {
    let listing = std::fs::read_to_string(format!("{DIR}{name}.sm100.sass")).unwrap();
    let mut lines: Vec<String> = parse_listing(&listing)
        .unwrap()
        .into_iter()
        .filter(|l| l.is_tld4())
        .map(|l| {
            format!(
                "{path}\t{}\t0x{:04x}\t{:032x}\t{}",
                l.kernel,
                l.offset,
                l.word.unwrap(),
                l.text
            )
        })
        .collect();
    lines.sort();
    assert!(!lines.is_empty(), "{name}: no TLD4 in the listing");
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
        assert_eq!(got, expected_lines(path, name), "{name}");
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
        .map(|l| l.replacen('X', &format!("{fat}#1"), 1))
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
    assert!(stderr.contains(&format!("error: {zstd}: ")), "{stderr}");
    assert!(stderr.contains("cuobjdump -xelf all"), "{stderr}");
    assert!(stderr.contains(&format!("error: {missing}: ")), "{stderr}");
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        expected_lines(&good, "one_gather")
    );
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
