//! `tld4 scan FILE...` and `tld4 disasm FILE.cubin`: every TLD4 in compiled code (cubins, fat
//! binaries, host ELF files with embedded cubins), found by `tld4-cubin`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_cubin::fatbin::is_fatbin;
use tld4_cubin::{is_elf, open, Image, Origin, Tld4Site, SM100};

use crate::disasm::write_fields;
use crate::words::hex32;
use crate::CmdResult;

/// `tld4 scan`: one tab-separated line per TLD4.
#[derive(clap::Args, Debug)]
pub struct ScanArgs {
    /// Cubins (ELF for sm_100), fat binaries, or host ELF files with embedded sm_100 cubins.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The file column of one cubin: the path, and for a fat-binary entry `#<entry index>`.
fn file_column(path: &Path, image: &Image) -> String {
    match image.origin {
        Origin::File => path.display().to_string(),
        Origin::FatbinEntry { index } => format!("{}#{index}", path.display()),
    }
}

/// The text column: nvdisasm's text, or `error: <why>` for a word nvdisasm refuses.
fn text_column(site: &Tld4Site) -> (String, bool) {
    match &site.decoded {
        Ok(insn) => (insn.text(), true),
        Err(e) => (format!("error: {e}"), false),
    }
}

/// `tld4 scan`: exit 0 when every file opened and every TLD4-opcode word decoded, 1 when some
/// word is an illegal TLD4 encoding, 2 when some file could not be opened (each is reported,
/// and the other files are still scanned).
pub fn scan(args: &ScanArgs) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let (mut bad_file, mut bad_word) = (false, false);
    for path in &args.files {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                bad_file = true;
                out.flush()?;
                eprintln!("error: {}: {e}", path.display());
                continue;
            }
        };
        let images = match open(&bytes, &[SM100]) {
            Ok(i) => i,
            Err(e) => {
                bad_file = true;
                out.flush()?;
                eprintln!("error: {}: {e}", path.display());
                continue;
            }
        };
        for image in &images {
            let file = file_column(path, image);
            for site in image.cubin.tld4s() {
                let (text, ok) = text_column(&site);
                bad_word |= !ok;
                writeln!(
                    out,
                    "{file}\t{}\t{:#06x}\t{}\t{text}",
                    site.kernel,
                    site.offset,
                    hex32(site.word)
                )?;
            }
        }
    }
    out.flush()?;
    Ok(if bad_file {
        ExitCode::from(2)
    } else if bad_word {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `tld4 disasm FILE` where FILE starts with the ELF or fat-binary magic: each kernel with
/// TLD4s as `.text.<kernel>:`, then `/*<offset>*/ <text>` per TLD4 (nvdisasm -c's layout, TLD4
/// lines only), with `--fields` each field. `None` when FILE is not such a file.
pub fn disasm_compiled(file: Option<&Path>, fields: bool) -> Result<Option<ExitCode>, Box<dyn std::error::Error>> {
    let Some(path) = file else {
        return Ok(None);
    };
    let Ok(bytes) = std::fs::read(path) else {
        // Unreadable: the text reader reports it.
        return Ok(None);
    };
    if !is_elf(&bytes) && !is_fatbin(&bytes) {
        return Ok(None);
    }
    let images = open(&bytes, &[SM100]).map_err(|e| format!("{}: {e}", path.display()))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut bad_word = false;
    for image in &images {
        if let Origin::FatbinEntry { index } = image.origin {
            writeln!(out, "// fat-binary entry {index}")?;
        }
        for kernel in image.cubin.kernels() {
            let mut sites = kernel.tld4s().peekable();
            if sites.peek().is_none() {
                continue;
            }
            writeln!(out, ".text.{}:", kernel.name())?;
            for site in sites {
                let (text, ok) = text_column(&site);
                bad_word |= !ok;
                writeln!(out, "        /*{:04x}*/ {text}", site.offset)?;
                if let (true, Ok(insn)) = (fields, &site.decoded) {
                    write_fields(&mut out, insn)?;
                }
            }
        }
    }
    out.flush()?;
    Ok(Some(if bad_word {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }))
}
