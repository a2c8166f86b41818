//! `tld4 scan FILE...` and `tld4 disasm FILE.cubin`: every TLD4 in compiled code (cubins, fat
//! binaries, host ELF files with embedded cubins), found by `tld4-cubin`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_cubin::{
    is_compiled, map_file, visit_file, CubinError, Image, Tld4Site, Visited, SUPPORTED,
};

use crate::disasm::write_fields;
use crate::words::hex32;
use crate::CmdResult;

/// `tld4 scan`: one tab-separated line per TLD4.
#[derive(clap::Args, Debug)]
pub struct ScanArgs {
    /// Cubins (ELF for sm_100), fat binaries, host ELF files (executables, libraries, objects)
    /// with embedded device code, or static archives of such objects.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// The file column of one cubin: the path, then `(member)` for an archive member and
/// `#<n>` for a fat-binary ELF entry, numbered as cuobjdump numbers them.
fn file_column(path: &Path, image: &Image) -> String {
    format!("{}{}", path.display(), image.origin)
}

/// The text column: nvdisasm's text, or `error: <why>` for a word nvdisasm refuses.
fn text_column(site: &Tld4Site) -> (String, bool) {
    match &site.decoded {
        Ok(insn) => (insn.text(), true),
        Err(e) => (format!("error: {e}"), false),
    }
}

/// What scanning one file found wrong.
#[derive(Default)]
struct Outcome {
    bad_file: bool,
    bad_word: bool,
}

/// Visits the cubins of one file with `each`; errors (the file's, an entry's) and skipped
/// entries are told on standard error, after flushing `out`.
fn each_cubin(
    path: &Path,
    out: &mut impl Write,
    outcome: &mut Outcome,
    mut each: impl FnMut(&mut dyn Write, &Image) -> std::io::Result<bool>,
) -> std::io::Result<()> {
    let bytes = match map_file(path) {
        Ok(b) => b,
        Err(e) => {
            outcome.bad_file = true;
            out.flush()?;
            crate::output::elog!("error: {e}");
            return Ok(());
        }
    };
    let mut io_err = None;
    let visited = visit_file(&bytes, SUPPORTED, |image| {
        if io_err.is_some() {
            return;
        }
        let r = match image {
            Ok(image) => each(out, &image).map(|ok| outcome.bad_word |= !ok),
            Err(e) => {
                outcome.bad_file = true;
                out.flush()
                    .map(|()| crate::output::elog!("error: {}: {e}", path.display()))
            }
        };
        if let Err(e) = r {
            io_err = Some(e);
        }
    });
    if let Some(e) = io_err {
        return Err(e);
    }
    out.flush()?;
    match visited {
        Ok(Visited { skipped, .. }) if !skipped.is_empty() => {
            crate::output::elog!("note: {}: {skipped}", path.display())
        }
        Ok(_) => {}
        // Device code, all of it for other architectures: nothing is hidden, so a note (a bare
        // cubin for another architecture stays an error: it was named to be read).
        Err(e @ CubinError::NoSupportedCubin { .. }) => {
            crate::output::elog!("note: {}: {e}", path.display())
        }
        Err(e) => {
            outcome.bad_file = true;
            crate::output::elog!("error: {}: {e}", path.display());
        }
    }
    Ok(())
}

/// `tld4 scan`: exit 0 when every file opened and every TLD4-opcode word decoded (entries of
/// other architectures are skipped, told on standard error, also where a file has no other), 1 when some word is an illegal
/// TLD4 encoding, 2 when some file or entry could not be opened (each is reported, and the
/// other files and entries are still scanned).
pub fn scan(args: &ScanArgs) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut outcome = Outcome::default();
    for path in &args.files {
        each_cubin(path, &mut out, &mut outcome, |out, image| {
            let file = file_column(path, image);
            let mut ok = true;
            for site in image.cubin.tld4s() {
                let (text, decoded) = text_column(&site);
                ok &= decoded;
                writeln!(
                    out,
                    "{file}\t{}\t{}\t{:#06x}\t{}\t{text}",
                    image.target,
                    site.kernel,
                    site.offset,
                    hex32(site.word)
                )?;
            }
            Ok(ok)
        })?;
    }
    out.flush()?;
    Ok(if outcome.bad_file {
        ExitCode::from(crate::EXIT_BAD_INPUT)
    } else if outcome.bad_word {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `tld4 disasm FILE` where FILE is compiled code (ELF, fat binary or archive): each kernel
/// with TLD4s as `.text.<kernel>:`, then `/*<offset>*/ <text>` per TLD4 (nvdisasm -c's layout,
/// TLD4 lines only), with `--fields` each field. `None` when FILE is a text file (or does not
/// exist: the text reader reports it); an error for a path that is not a regular file.
pub fn disasm_compiled(
    file: Option<&Path>,
    fields: bool,
) -> Result<Option<ExitCode>, Box<dyn std::error::Error>> {
    let Some(path) = file.filter(|p| p.as_os_str() != "-") else {
        return Ok(None);
    };
    match map_file(path) {
        Ok(bytes) if is_compiled(&bytes) => {}
        Ok(_) => return Ok(None),
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut outcome = Outcome::default();
    each_cubin(path, &mut out, &mut outcome, |out, image| {
        if image.origin.entry.is_some() || image.origin.member.is_some() {
            writeln!(
                out,
                "// {}{} ({})",
                path.display(),
                image.origin,
                image.target
            )?;
        }
        let mut ok = true;
        for kernel in image.cubin.kernels() {
            let mut sites = kernel.tld4s().peekable();
            if sites.peek().is_none() {
                continue;
            }
            writeln!(out, ".text.{}:", kernel.name())?;
            for site in sites {
                let (text, decoded) = text_column(&site);
                ok &= decoded;
                writeln!(out, "        /*{:04x}*/ {text}", site.offset)?;
                if let (true, Ok(insn)) = (fields, &site.decoded) {
                    write_fields(out, insn)?;
                }
            }
        }
        Ok(ok)
    })?;
    out.flush()?;
    Ok(Some(if outcome.bad_file {
        ExitCode::from(crate::EXIT_BAD_INPUT)
    } else if outcome.bad_word {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }))
}
