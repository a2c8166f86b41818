//! Every TLD4 of the files given, one tab-separated line each, as `tld4 scan` prints them (file
//! and entry, kernel, offset, word, text, architecture), with this crate alone: the pattern for
//! a tool that reads compiled code, and what the README's scan figures measure without the
//! CLI's other dependencies.
//!
//! `cargo run --release -p tld4-cubin --example scan -- FILE...`

use std::process::ExitCode;

use tld4_cubin::{read_file, supported, visit};

fn main() -> ExitCode {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let bytes = match read_file(path.as_ref()) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
                continue;
            }
        };
        let visited = visit(&bytes, supported(), |image| match image {
            Ok(image) => {
                for site in image.cubin.tld4s() {
                    let text = match &site.decoded {
                        Ok(insn) => insn.text(),
                        Err(e) => format!("error: {e}"),
                    };
                    println!(
                        "{path}{}\t{}\t{:#06x}\t{:032x}\t{text}\t{}",
                        image.origin, site.kernel, site.offset, site.word, image.target
                    );
                }
            }
            Err(e) => {
                eprintln!("error: {path}: {e}");
                failed = true;
            }
        });
        match visited {
            Ok(v) if !v.skipped.is_empty() => eprintln!("note: {path}: {}", v.skipped),
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {path}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
