//! `tld4-hw-probe`: build-time steps (PTX, layout, variants, SM90 check) and the device run.
//!
//! ```text
//! bash oracles/hw-probe/build-kernels.sh          # here: PTX -> cubin -> layout -> verified variants
//! bash oracles/hw-probe/run-on-device.sh          # on a machine with an NVIDIA GPU; writes $OUT
//! tld4-hw-probe report --results DIR/hw_results.json --golden G.json --report R.md
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use tld4_hw_probe::{kernels, layout, nvdisasm, patch, probe, ptx, report, sm90};

#[derive(Parser)]
#[command(
    name = "tld4-hw-probe",
    version,
    about = "TLD4 on real NVIDIA hardware: kernels, patched variants, runs and reports"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Prints the PTX source of the kernels (the SM90 file, or with --portable the file for
    /// any GPU from SM75 to SM121).
    GenPtx {
        #[arg(long)]
        portable: bool,
    },
    /// Writes the layout JSON of a cubin from nvdisasm's listing.
    Layout {
        #[arg(long)]
        cubin: PathBuf,
        /// The last line of `ptxas --version`.
        #[arg(long)]
        ptxas: String,
        #[arg(long)]
        nvdisasm: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Writes every variant's word, checked by nvdisasm -b SM90 against tld4-decoder.
    Variants {
        #[arg(long)]
        cubin: PathBuf,
        #[arg(long)]
        layout: PathBuf,
        #[arg(long)]
        nvdisasm: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Checks SM90's TLD4 bits with nvdisasm -b SM90 and writes the report.
    VerifySm90 {
        #[arg(long)]
        nvdisasm: Option<PathBuf>,
        #[arg(long, default_value_t = 4000)]
        random: usize,
        #[arg(long, default_value_t = 90)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Runs the probe on the GPU; every phase in a process of its own.
    Run {
        /// Where results go (the device tool collects $OUT).
        #[arg(long)]
        out: PathBuf,
        /// Only these phases (default: all).
        #[arg(long)]
        phase: Vec<String>,
        /// Stop starting phases after this many seconds.
        #[arg(long, default_value_t = 420)]
        budget_s: u64,
        /// Which kernels: auto (the sm_90 cubin on an SM90 GPU, else the driver's JIT of the
        /// portable PTX), sm90, jit, or a cubin built from kernels/tld4_probe.portable.ptx.
        #[arg(long, default_value = "auto")]
        kernels: probe::KernelChoice,
    },
    /// Lists the phases.
    Phases,
    /// Runs one phase in this process (what `run` starts for each phase).
    Child {
        #[arg(long)]
        phase: String,
        #[arg(long)]
        out: PathBuf,
        /// sm90, or the cubin file the parent chose.
        #[arg(long)]
        kernels: String,
    },
    /// Turns results into golden data and a report on docs/sources.md's open questions.
    Report {
        #[arg(long)]
        results: PathBuf,
        #[arg(long)]
        golden: PathBuf,
        #[arg(long)]
        report: PathBuf,
    },
}

fn nvdisasm_path(p: Option<PathBuf>) -> Result<PathBuf, String> {
    p.or_else(nvdisasm::find_nvdisasm)
        .ok_or_else(|| "no nvdisasm: run oracles/hw-probe/build-kernels.sh (installs it into target/ptxas-venv) or set NVDISASM".into())
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.cmd {
        Cmd::GenPtx { portable } => print!(
            "{}",
            ptx::ptx_source_for(if portable { &ptx::PORTABLE } else { &ptx::SM90 })
        ),
        Cmd::Layout {
            cubin,
            ptxas,
            nvdisasm,
            out,
        } => {
            let nv = nvdisasm_path(nvdisasm)?;
            let bytes = std::fs::read(&cubin).map_err(|e| format!("{}: {e}", cubin.display()))?;
            let listing = nvdisasm::listing(&nv, &cubin).map_err(|e| e.to_string())?;
            let l = layout::analyze(&bytes, &listing, &ptxas)?;
            let json = serde_json::to_string_pretty(&l).unwrap() + "\n";
            std::fs::write(&out, json).map_err(|e| e.to_string())?;
            eprintln!(
                "layout: {} kernels; raw A=R{} B=R{} C=R{}",
                l.kernels.len(),
                l.raw.a_reg,
                l.raw.b_reg,
                l.raw.c_reg
            );
        }
        Cmd::Variants {
            cubin,
            layout: lp,
            nvdisasm,
            out,
        } => {
            let nv = nvdisasm_path(nvdisasm)?;
            let bytes = std::fs::read(&cubin).map_err(|e| e.to_string())?;
            let l: layout::Layout =
                serde_json::from_str(&std::fs::read_to_string(&lp).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
            kernels::check_layout(&l, &bytes)?;
            let tsv = kernels::variants_tsv(&bytes, &l, &nv)?;
            std::fs::write(&out, tsv).map_err(|e| e.to_string())?;
            eprintln!(
                "variants: {} written to {}",
                patch::variants().len(),
                out.display()
            );
        }
        Cmd::VerifySm90 {
            nvdisasm,
            random,
            seed,
            out,
        } => {
            let nv = nvdisasm_path(nvdisasm)?;
            let l = kernels::layout()?;
            let mut bases: Vec<u128> = l
                .kernels
                .iter()
                .map(|k| layout::parse_word(&k.tld4_word))
                .collect::<Result<_, _>>()?;
            bases.sort();
            bases.dedup();
            // Four bases are enough for the structured words (one per dimension where possible).
            let mut picked: Vec<u128> = Vec::new();
            // (dimensions read through the SM90 tables, as every probe word is)
            let dim = |w: u128| patch::decode_sm90(w).map(|d| d.insn.dimension);
            for b in &bases {
                let d = dim(*b)?;
                let mut seen = false;
                for p in &picked {
                    seen |= dim(*p)? == d;
                }
                if picked.len() < 4 && !seen {
                    picked.push(*b);
                }
            }
            let bases = picked;
            let words = sm90::words(&bases, random, seed);
            let rep = sm90::verify(&nv, &words).map_err(|e| e.to_string())?;
            let ver = std::process::Command::new(&nv)
                .arg("--version")
                .output()
                .map(|o| {
                    String::from_utf8_lossy(&o.stdout)
                        .lines()
                        .last()
                        .unwrap_or("")
                        .to_string()
                })
                .unwrap_or_default();
            std::fs::write(&out, sm90::markdown(&rep, &ver)).map_err(|e| e.to_string())?;
            let other = rep
                .disagreements
                .iter()
                .filter(|d| !sm90::is_d64_form(d))
                .count();
            eprintln!(
                "verify-sm90: {} words, {} disagreements ({} other than the 0xd64 form)",
                words.len(),
                rep.disagreements.len(),
                other
            );
            if other > 0 {
                return Err(format!(
                    "{other} unexpected disagreements: see {}",
                    out.display()
                ));
            }
        }
        Cmd::Run {
            out,
            phase,
            budget_s,
            kernels,
        } => probe::run_all(&out, &phase, budget_s, &kernels)?,
        Cmd::Phases => {
            for p in probe::PHASES {
                println!("{}\t{}", p.name, p.about);
            }
        }
        Cmd::Child {
            phase,
            out,
            kernels,
        } => {
            let source = if kernels == "sm90" {
                probe::KernelSource::Sm90Cubin
            } else {
                probe::KernelSource::File(kernels.into())
            };
            probe::run_child(&phase, &out, &source)?
        }
        Cmd::Report {
            results,
            golden,
            report: rp,
        } => report::report_files(&results, &golden, &rp)?,
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tld4-hw-probe: {e}");
            ExitCode::from(2)
        }
    }
}
