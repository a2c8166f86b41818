//! Running NVIDIA's nvdisasm (a build-time tool here; the device run never needs it).
//!
//! `nvdisasm -c FILE.cubin` lists every kernel: a `.text.<kernel>:` label, then one line per
//! instruction `/*addr*/  TEXT ;  /* 0xLOW */` and a second line `/* 0xHIGH */` (nvdisasm
//! 13.5). `nvdisasm -b SM90 -hex RAW` does the same for a raw file of 16-byte words; it prints
//! nothing when any word is illegal and names the byte address of the first bad one on stderr
//! (FACTS.md, "The oracles").

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// Where `build-kernels.sh` installs nvdisasm and ptxas (the CUDA 13.5 wheels from PyPI).
pub const DEFAULT_CU13_BIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../target/ptxas-venv/lib/python3.11/site-packages/nvidia/cu13/bin"
);
/// Where `build-kernels.sh` installs ptxas 11.8 (`nvidia-cuda-nvcc-cu11` from PyPI).
pub const DEFAULT_CU118_BIN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../target/ptxas11-venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin"
);

/// nvdisasm's path: `$NVDISASM`, else the default venv's, if the file exists.
pub fn find_nvdisasm() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NVDISASM") {
        let p = PathBuf::from(p);
        return p.exists().then_some(p);
    }
    let p = PathBuf::from(DEFAULT_CU13_BIN).join("nvdisasm");
    p.exists().then_some(p)
}

/// One instruction of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The byte address inside the kernel's text.
    pub addr: usize,
    /// The text, whitespace collapsed, without the trailing ` ;`.
    pub text: String,
}

/// Collapses runs of whitespace to one space.
pub fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses one listing line `/*0150*/  TEXT ;  /* 0x... */` into (addr, text).
fn parse_line(l: &str) -> Option<Line> {
    let l = l.trim();
    let rest = l.strip_prefix("/*")?;
    let (addr, rest) = rest.split_once("*/")?;
    let addr = usize::from_str_radix(addr, 16).ok()?;
    let text = match rest.find("/*") {
        Some(i) => &rest[..i],
        None => rest,
    };
    let text = collapse(text);
    let text = text
        .strip_suffix(';')
        .unwrap_or(&text)
        .trim_end()
        .to_string();
    Some(Line { addr, text })
}

/// The listing of every kernel of a cubin: kernel name -> instructions.
pub fn listing(nvdisasm: &Path, cubin: &Path) -> io::Result<BTreeMap<String, Vec<Line>>> {
    let out = Command::new(nvdisasm).arg("-c").arg(cubin).output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "nvdisasm failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(parse_listing(&String::from_utf8_lossy(&out.stdout)))
}

/// Parses nvdisasm's listing of a cubin.
pub fn parse_listing(s: &str) -> BTreeMap<String, Vec<Line>> {
    let mut map = BTreeMap::new();
    let mut cur: Option<String> = None;
    for l in s.lines() {
        let t = l.trim();
        if let Some(name) = t.strip_prefix(".text.").and_then(|r| r.strip_suffix(':')) {
            cur = Some(name.to_string());
            map.entry(name.to_string()).or_insert_with(Vec::new);
            continue;
        }
        if let (Some(k), Some(line)) = (&cur, parse_line(t)) {
            map.get_mut(k).unwrap().push(line);
        }
    }
    map
}

static SEQ: AtomicU64 = AtomicU64::new(0);

/// What nvdisasm says of each word of a raw file, for `arch` (e.g. "SM90"): `Ok(text)` per
/// word, or `Err(message)` for the whole file when any word is refused (nvdisasm then prints
/// no instruction at all).
pub fn raw_words(
    nvdisasm: &Path,
    arch: &str,
    words: &[u128],
) -> io::Result<Result<Vec<String>, String>> {
    let dir = std::env::temp_dir();
    let path = dir.join(format!(
        "tld4-hw-probe-{}-{}.bin",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes)?;
    let out = Command::new(nvdisasm)
        .args(["-b", arch, "-hex"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Line> = stdout.lines().filter_map(parse_line).collect();
    if lines.len() != words.len() {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Ok(Err(if err.is_empty() {
            format!("{} lines for {} words", lines.len(), words.len())
        } else {
            err
        }));
    }
    Ok(Ok(lines.into_iter().map(|l| l.text).collect()))
}

/// [`raw_words`] for one word.
pub fn raw_word(nvdisasm: &Path, arch: &str, word: u128) -> io::Result<Result<String, String>> {
    Ok(raw_words(nvdisasm, arch, &[word])?.map(|mut v| v.remove(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_listing_lines() {
        let s = "\t.section\t.text.raw,\"ax\",@progbits\n.text.raw:\n        /*0150*/                   TLD4.R.AOFFI.DC P0, R18, R16, R16, R18, UR4, 0x0, 2D ;   /* 0x2000041210107f63 */\n                                                                                        /* 0x000f620008105f12 */\n.L_x_23:\n        /*0200*/                   EXIT ;                                                   /* 0x000000000000794d */\n";
        let m = parse_listing(s);
        let raw = &m["raw"];
        assert_eq!(raw.len(), 2);
        assert_eq!(
            raw[0],
            Line {
                addr: 0x150,
                text: "TLD4.R.AOFFI.DC P0, R18, R16, R16, R18, UR4, 0x0, 2D".into()
            }
        );
        assert_eq!(raw[1].text, "EXIT");
    }
}
