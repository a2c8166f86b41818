//! Running NVIDIA's nvdisasm (a build-time tool here; the device run never needs it).
//!
//! `nvdisasm -c FILE.cubin` lists every kernel: a `.text.<kernel>:` label, then one line per
//! instruction `/*addr*/  TEXT ;  /* 0xLOW */` and a second line `/* 0xHIGH */` (nvdisasm
//! 13.5). `nvdisasm -b SM90 -hex RAW` does the same for a raw file of 16-byte words; it prints
//! nothing when any word is illegal and names the byte address of the first bad one on stderr
//! (docs/sources.md, The oracles).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

/// The repository's `target/` folder, where the install scripts put their virtual environments.
const TARGET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target");

/// A build-time tool of the probe, and where the repository's scripts install it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// NVIDIA's nvdisasm (CUDA 13.5, PyPI `nvidia-cuda-nvdisasm`).
    Nvdisasm,
    /// ptxas 11.8 (PyPI `nvidia-cuda-nvcc-cu11`), the oldest toolkit with sm_90, which built
    /// the committed cubin.
    Ptxas118,
    /// ptxas 13.5 (PyPI `nvidia-cuda-nvcc`, installed by `tests/cubins/install.sh`, which
    /// `.ci/run` runs): builds the portable PTX for every architecture from sm_75 to sm_121.
    Ptxas135,
}

impl Tool {
    /// The tool's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Nvdisasm => "nvdisasm",
            Tool::Ptxas118 => "ptxas 11.8",
            Tool::Ptxas135 => "ptxas 13.5",
        }
    }

    /// The environment variable that names the binary, overriding the search.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Nvdisasm => "NVDISASM",
            Tool::Ptxas118 => "PTXAS_11_8",
            Tool::Ptxas135 => "PTXAS_13_5",
        }
    }

    /// (virtual environment under `target/`, the binary's path under its site-packages'
    /// `nvidia/` folder with `*` for any one name part), in search order: build-kernels.sh's
    /// venvs first, then `oracles/nvdisasm/install.sh`'s (the one `.ci/run` installs).
    fn places(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Tool::Nvdisasm => &[
                ("ptxas-venv", "cu*/bin/nvdisasm"),
                ("oracle-venv", "cu*/bin/nvdisasm"),
            ],
            Tool::Ptxas118 => &[("ptxas11-venv", "cuda_nvcc/bin/ptxas")],
            Tool::Ptxas135 => &[("ptxas-venv", "cu*/bin/ptxas")],
        }
    }

    /// How to install the tool.
    pub fn install_hint(self) -> &'static str {
        match self {
            Tool::Nvdisasm => {
                "run `bash oracles/nvdisasm/install.sh` or oracles/hw-probe/build-kernels.sh, or set NVDISASM"
            }
            Tool::Ptxas118 => "run oracles/hw-probe/build-kernels.sh, or set PTXAS_11_8",
            Tool::Ptxas135 => "run `bash tests/cubins/install.sh`, or set PTXAS_13_5",
        }
    }
}

/// A tool that [`locate`] did not find, with where it looked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolMissing {
    /// The tool.
    pub tool: Tool,
    /// The patterns searched (or the file the environment variable named).
    pub looked: Vec<String>,
}

impl std::fmt::Display for ToolMissing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} not found (looked for {}); {}",
            self.tool.name(),
            self.looked.join(", "),
            self.tool.install_hint()
        )
    }
}

impl std::error::Error for ToolMissing {}

/// The entries of `dir` whose names start with `prefix` (all of them for `*`), sorted.
fn entries(dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let prefix = pattern.strip_suffix('*');
    let mut v: Vec<PathBuf> = match prefix {
        None => vec![dir.join(pattern)],
        Some(prefix) => std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
            })
            .collect(),
    };
    v.sort();
    v
}

/// The files matching `root/<pattern>`, where each `/`-separated part of `pattern` is a name or
/// a prefix followed by `*`.
fn glob(root: &Path, pattern: &str) -> Vec<PathBuf> {
    let mut found = vec![root.to_path_buf()];
    for part in pattern.split('/') {
        found = found.iter().flat_map(|d| entries(d, part)).collect();
    }
    found.into_iter().filter(|p| p.is_file()).collect()
}

/// The tool's path: the file its environment variable names (an error if that file is
/// missing), else the first match under the venvs the repository's scripts make in `target/`
/// (`<venv>/lib/python*/site-packages/nvidia/...`, the search oracles/nvdisasm makes for
/// the nvdisasm its install.sh installs).
pub fn locate(tool: Tool) -> Result<PathBuf, ToolMissing> {
    if let Some(p) = std::env::var_os(tool.env_var()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(ToolMissing {
                tool,
                looked: vec![format!("${} = {}", tool.env_var(), p.display())],
            })
        };
    }
    let mut looked = Vec::new();
    for (venv, bin) in tool.places() {
        let pattern = format!("lib/python*/site-packages/nvidia/{bin}");
        if let Some(p) = glob(&Path::new(TARGET).join(venv), &pattern)
            .into_iter()
            .next()
        {
            return Ok(p);
        }
        looked.push(format!("target/{venv}/{pattern}"));
    }
    Err(ToolMissing { tool, looked })
}

/// nvdisasm's path ([`locate`]), if found.
pub fn find_nvdisasm() -> Option<PathBuf> {
    locate(Tool::Nvdisasm).ok()
}

/// Whether this is a CI run (environment variable `CI` set, and not empty, `0` or `false`):
/// there a missing tool fails a test instead of skipping it.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "FALSE" | "False"))
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
    fn glob_finds_the_venv_layout_whatever_the_python_version() {
        let root = std::env::temp_dir().join(format!("tld4-hw-probe-glob-{}", std::process::id()));
        let bin = root.join("lib/python3.13/site-packages/nvidia/cu13/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(root.join("lib/python3.12/site-packages/nvidia/cu12/bin")).unwrap();
        std::fs::write(bin.join("nvdisasm"), b"").unwrap();
        let found = glob(&root, "lib/python*/site-packages/nvidia/cu*/bin/nvdisasm");
        let missing = glob(
            &root,
            "lib/python*/site-packages/nvidia/cuda_nvcc/bin/ptxas",
        );
        let _ = std::fs::remove_dir_all(&root);
        assert_eq!(found, vec![bin.join("nvdisasm")]);
        assert!(missing.is_empty(), "{missing:?}");
    }

    #[test]
    fn a_missing_tool_says_where_it_looked_and_how_to_install_it() {
        let m = ToolMissing {
            tool: Tool::Nvdisasm,
            looked: vec![
                "target/oracle-venv/lib/python*/site-packages/nvidia/cu*/bin/nvdisasm".into(),
            ],
        };
        let text = m.to_string();
        assert!(
            text.starts_with("nvdisasm not found (looked for target/oracle-venv/"),
            "{text}"
        );
        assert!(text.contains("oracles/nvdisasm/install.sh"), "{text}");
    }

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
