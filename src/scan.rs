//! `tld4 scan FILE...` and `tld4 disasm FILE.cubin`: every TLD4 in compiled code (cubins, fat
//! binaries, host ELF files with embedded cubins), found by `tld4-cubin`, for every
//! architecture the decoder knows, each cubin's words decoded with its own architecture's
//! tables.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tld4_cubin::{
    arch_number, is_compiled, read_file, read_input, supported, visit, CubinError, Image, SmArch,
    Target, Tld4Site, Visited, MAX_FILE_BYTES,
};
use tld4_decoder::{Arch, DecodeError};

use crate::disasm::write_arch_fields;
use crate::words::hex32;
use crate::CmdResult;

/// `tld4 scan`: one tab-separated line per TLD4.
#[derive(clap::Args, Debug)]
pub struct ScanArgs {
    /// Cubins (ELF for the CUDA machine, sm_75 to sm_121), fat binaries, host ELF files
    /// (executables, libraries, objects) with embedded device code, or static archives of
    /// such objects.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Only cubins of this architecture (repeatable): `sm_90` takes sm_90 and its variants,
    /// `sm_100a` only sm_100a. Default: every architecture.
    #[arg(long, value_name = "ARCH")]
    pub arch: Vec<Arch>,
}

/// Which cubins a command reads: every architecture the decoder knows, or those `--arch`
/// names.
struct Selection<'a> {
    archs: &'a [Arch],
    /// The architecture numbers passed to the visit (entries of others are skipped there,
    /// before being decompressed).
    numbers: Vec<SmArch>,
}

impl<'a> Selection<'a> {
    fn new(archs: &'a [Arch]) -> Self {
        let numbers = supported()
            .iter()
            .copied()
            .filter(|&sm| archs.is_empty() || archs.iter().any(|&a| arch_number(a) == Some(sm)))
            .collect();
        Selection { archs, numbers }
    }

    /// Whether a cubin of `target` is listed (its number passed the visit's filter).
    fn takes(&self, target: Target) -> bool {
        self.archs.is_empty() || self.archs.iter().any(|&a| target.selected_by(a))
    }
}

/// The file column of one cubin: the path, then `(member)` for an archive member and
/// `#<n>` for a fat-binary ELF entry, numbered as cuobjdump numbers them.
fn file_column(path: &Path, image: &Image) -> String {
    format!("{}{}", path.display(), image.origin)
}

/// What the text column holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Listed {
    /// nvdisasm's text.
    Text,
    /// A word nvdisasm refuses: `error: <why>`.
    Refused,
    /// A TLD4 form tld4 does not model yet: `not modeled: <why>` (nvdisasm prints it).
    NotModeled,
}

/// The text column: nvdisasm's text, `error: <why>` for a word nvdisasm refuses, or
/// `not modeled: <why>` for a TLD4 form of the architecture tld4 does not model yet.
fn text_column(site: &Tld4Site) -> (String, Listed) {
    match &site.decoded {
        // (as nvdisasm lists a cubin's code: ` ;` whatever the scheduling)
        Ok(insn) => (insn.listing_text(), Listed::Text),
        Err(e @ DecodeError::FormNotModeled { .. }) => {
            (format!("not modeled: {e}"), Listed::NotModeled)
        }
        Err(e) => (format!("error: {e}"), Listed::Refused),
    }
}

/// What scanning one file found wrong.
#[derive(Default)]
struct Outcome {
    bad_file: bool,
    bad_word: bool,
    /// TLD4 words of forms tld4 does not model yet, listed so far.
    not_modeled: usize,
}

impl Outcome {
    fn listed(&mut self, l: Listed) {
        match l {
            Listed::Text => {}
            Listed::Refused => self.bad_word = true,
            Listed::NotModeled => self.not_modeled += 1,
        }
    }

    fn exit_code(&self) -> ExitCode {
        if self.bad_file {
            ExitCode::from(crate::EXIT_BAD_INPUT)
        } else if self.bad_word || self.not_modeled > 0 {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// Visits the cubins of one file with `each`; errors (the file's, an entry's) and skipped
/// entries are told on standard error, after flushing `out`.
fn each_cubin(
    path: &Path,
    selection: &Selection,
    out: &mut impl Write,
    outcome: &mut Outcome,
    mut each: impl FnMut(&mut dyn Write, &Image, &mut Outcome) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // `-`: standard input (docs/cli.md).
    let bytes = match read_input(path, MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            outcome.bad_file = true;
            out.flush()?;
            crate::output::elog!("error: {e}");
            return Ok(());
        }
    };
    let mut io_err = None;
    let not_modeled_before = outcome.not_modeled;
    // (progress on standard error when it is a terminal: the entries read so far)
    let progress = crate::progress::spinner(&path.display().to_string());
    let mut entries = 0u64;
    // Entries of a selected number but another variant (`--arch sm_100a`: the sm_100 ones).
    let mut unselected: BTreeMap<Target, usize> = BTreeMap::new();
    let visited = visit(&bytes, &selection.numbers, |image| {
        if io_err.is_some() {
            return;
        }
        entries += 1;
        progress.set_message(format!("{entries} entries"));
        progress.tick();
        let r = match image {
            Ok(image) if !selection.takes(image.target) => {
                *unselected.entry(image.target).or_insert(0) += 1;
                Ok(())
            }
            Ok(image) => each(out, &image, outcome),
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
    progress.finish_and_clear();
    if let Some(e) = io_err {
        return Err(e);
    }
    out.flush()?;
    let not_modeled = outcome.not_modeled - not_modeled_before;
    if not_modeled > 0 {
        crate::output::elog!(
            "note: {}: {not_modeled} TLD4 word(s) of forms tld4 does not model yet (`not modeled:` in the text column; nvdisasm prints them)",
            path.display()
        );
    }
    if !unselected.is_empty() {
        let n: usize = unselected.values().sum();
        let names: Vec<String> = unselected.keys().map(|t| t.to_string()).collect();
        let noun = if n == 1 { "entry" } else { "entries" };
        crate::output::elog!(
            "note: {}: {n} {noun} for {} not selected by --arch",
            path.display(),
            names.join(", ")
        );
    }
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
/// architectures not selected or unknown to the decoder are skipped, told on standard error,
/// also where a file has no other), 1 when some word is an illegal TLD4 encoding or a form
/// tld4 does not model yet (each listed, and counted on standard error), 2 when some file or
/// entry could not be opened (each is reported, and the other files and entries are still
/// scanned).
pub fn scan(args: &ScanArgs) -> CmdResult {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut outcome = Outcome::default();
    let selection = Selection::new(&args.arch);
    for path in &args.files {
        each_cubin(
            path,
            &selection,
            &mut out,
            &mut outcome,
            |out, image, outcome| {
                let file = file_column(path, image);
                for site in image.cubin.tld4s() {
                    let (text, listed) = text_column(&site);
                    outcome.listed(listed);
                    writeln!(
                        out,
                        "{file}\t{}\t{:#06x}\t{}\t{text}\t{}",
                        site.kernel,
                        site.offset,
                        hex32(site.word),
                        image.target,
                    )?;
                }
                Ok(())
            },
        )?;
    }
    out.flush()?;
    Ok(outcome.exit_code())
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
    match read_file(path) {
        Ok(bytes) if is_compiled(&bytes) => {}
        Ok(_) => return Ok(None),
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut outcome = Outcome::default();
    let selection = Selection::new(&[]);
    each_cubin(
        path,
        &selection,
        &mut out,
        &mut outcome,
        |out, image, outcome| {
            if image.origin.entry.is_some() || image.origin.member.is_some() {
                writeln!(
                    out,
                    "// {}{} ({})",
                    path.display(),
                    image.origin,
                    image.target
                )?;
            }
            for kernel in image.cubin.kernels() {
                let mut sites = kernel.tld4s().peekable();
                if sites.peek().is_none() {
                    continue;
                }
                writeln!(out, ".text.{}:", kernel.name())?;
                for site in sites {
                    let (text, listed) = text_column(&site);
                    outcome.listed(listed);
                    writeln!(out, "        /*{:04x}*/ {text}", site.offset)?;
                    if let (true, Ok(insn)) = (fields, &site.decoded) {
                        write_arch_fields(out, insn, site.word)?;
                    }
                }
            }
            Ok(())
        },
    )?;
    out.flush()?;
    Ok(Some(outcome.exit_code()))
}
