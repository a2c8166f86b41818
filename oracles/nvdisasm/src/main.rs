//! `tld4-nvdisasm-oracle`: checks `tld4-decoder` against NVIDIA's nvdisasm, word by word,
//! and writes the golden corpus that `cargo test` checks offline.
//!
//! Words: every single-bit flip, every value of every field (so all 4,096 opcodes) and all
//! 256 opex values on three base words in both forms, then `--random N` random words. Each
//! word's legality, text (runs of spaces collapsed, as nvdisasm aligns `???` columns across
//! a listing), encode round trip and text -> bits -> text round trip are compared; then a
//! sample (`--single`) is run one word per file and compared exactly, spacing included.
//! Every disagreement is printed with its word; the exit code is 1 if there was any.
//!
//! ```text
//! bash oracles/nvdisasm/install.sh
//! cargo run --release -p tld4-nvdisasm-oracle -- --random 50000
//! ```

mod arches;
mod compare;
mod corpus;
mod nvdisasm;
mod rng;
mod words;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use tld4_decoder::{decode, HandleForm, LEGAL_OPEX_VALUES};

use compare::{check, Category, Disagreement, Outcome};
use nvdisasm::{Nvdisasm, Verdict};
use rng::Rng;
use words::{Kind, WordList};

/// The virtual environment where `install.sh` puts nvdisasm.
const VENV: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/oracle-venv");

/// The nvdisasm that `install.sh` installed: `<venv>/lib/python*/site-packages/nvidia/cu*/bin/nvdisasm`.
fn default_nvdisasm() -> PathBuf {
    let lib = PathBuf::from(VENV).join("lib");
    let subdirs = |dir: &std::path::Path, prefix: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
            })
            .collect();
        v.sort();
        v
    };
    for py in subdirs(&lib, "python") {
        for cu in subdirs(&py.join("site-packages/nvidia"), "cu") {
            let bin = cu.join("bin/nvdisasm");
            if bin.is_file() {
                return std::fs::canonicalize(&bin).unwrap_or(bin);
            }
        }
    }
    lib.join("python3.11/site-packages/nvidia/cu13/bin/nvdisasm")
}

#[derive(Parser, Debug)]
#[command(
    name = "tld4-nvdisasm-oracle",
    about = "Checks tld4-decoder against nvdisasm, word by word"
)]
struct Args {
    /// The nvdisasm binary (default: the one `oracles/nvdisasm/install.sh` installs).
    #[arg(long)]
    nvdisasm: Option<PathBuf>,
    /// How many random words to check, on top of the structured ones.
    #[arg(long, default_value_t = 200_000)]
    random: usize,
    /// The seed of the random words and of the one-word sample (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Write the golden corpus here (and the one-word sample next to it, as `<stem>_single.tsv`).
    #[arg(long)]
    write_corpus: Option<PathBuf>,
    /// How many of the random words go into the corpus (with the structured words: all
    /// flips, opex values and opcodes, and the values of the fields of at most 8 bits).
    #[arg(long, default_value_t = 10_000)]
    corpus_random: usize,
    /// How many words to run one word per file and compare exactly (spacing included).
    #[arg(long, default_value_t = 300)]
    single: usize,
    /// Parallel nvdisasm runs.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Words per nvdisasm file.
    #[arg(long, default_value_t = 20_000)]
    batch: usize,
    /// Random words to check on each architecture of `--arches` with `decode_arch` (after
    /// the SM100 run; 0: none).
    #[arg(long, default_value_t = 0)]
    arch_random: usize,
    /// The architectures for `--arch-random`: `all` (every one nvdisasm 13.5 knows) or a
    /// comma-separated list (`sm_90,sm_120a`).
    #[arg(long, default_value = "all")]
    arches: String,
}

/// Runs `f` over `items` on `jobs` threads, keeping the order.
fn parallel<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// Picks up to `n` distinct elements of `from` at random, in their original order.
fn sample(from: &[usize], n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut v = from.to_vec();
    let n = n.min(v.len());
    for i in 0..n {
        let j = i + rng.below(v.len() - i);
        v.swap(i, j);
    }
    v.truncate(n);
    v.sort_unstable();
    v
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("tld4-nvdisasm-oracle: {e}");
            ExitCode::from(2)
        }
    }
}

/// The `--arch-random` part: every architecture of `--arches`, in parallel.
fn run_arches(args: &Args, nv: &Nvdisasm, seed: u64) -> Result<bool, String> {
    let list: Vec<tld4_decoder::Arch> = if args.arches == "all" {
        tld4_decoder::Arch::ALL.to_vec()
    } else {
        args.arches
            .split(',')
            .map(|s| {
                s.parse()
                    .map_err(|e: tld4_decoder::UnknownArch| e.to_string())
            })
            .collect::<Result<_, _>>()?
    };
    let t = Instant::now();
    let reports = parallel(&list, args.jobs, |&arch| {
        let mut rng = Rng::new(seed ^ (arch as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        arches::check_arch(nv, arch, &mut rng, args.arch_random)
    });
    let mut ok = true;
    for (arch, r) in list.iter().zip(reports) {
        let r = r?;
        for d in r.disagreements.iter().take(20) {
            println!("{d}");
        }
        println!(
            "arch {arch} ({}): {} words: {} TLD4 agree, {} refused agree, {} disagree; \
             not modeled: {} TLD4 to nvdisasm, {} refused",
            arch.family(),
            r.words,
            r.agree_tld4,
            r.agree_refused,
            r.disagreements.len(),
            r.not_modeled.0,
            r.not_modeled.1
        );
        ok &= r.disagreements.is_empty();
    }
    println!(
        "architectures: {} checked, {:.1} s, {}",
        list.len(),
        t.elapsed().as_secs_f64(),
        if ok { "all agree" } else { "DISAGREEMENTS" }
    );
    Ok(ok)
}

fn run(args: &Args) -> Result<bool, String> {
    let started = Instant::now();
    let seed = args.seed.unwrap_or_else(|| {
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        t ^ (std::process::id() as u64).rotate_left(32)
    });
    println!("seed: {seed} (replay with --seed {seed})");
    let path = args.nvdisasm.clone().unwrap_or_else(default_nvdisasm);
    let nv = Nvdisasm::new(&path)
        .map_err(|e| format!("{e} (run `bash oracles/nvdisasm/install.sh`)"))?;
    let version = nv.version().map_err(|e| e.to_string())?;
    println!("nvdisasm: {} ({version})", path.display());

    let mut rng = Rng::new(seed);
    let mut list = WordList::default();
    words::structured(&mut list);
    let structured = list.words.len();
    words::random(&mut list, &mut rng, args.random);
    println!(
        "words: {} structured + {} random",
        structured,
        list.words.len() - structured
    );

    // nvdisasm over every word, in listings.
    let chunks: Vec<&[u128]> = list.words.chunks(args.batch.max(1)).collect();
    let results = parallel(&chunks, args.jobs, |c| nv.verdicts(c));
    let mut verdicts: Vec<Verdict> = Vec::with_capacity(list.words.len());
    for r in results {
        verdicts.extend(r?);
    }
    let listed_runs = nv.runs();
    println!(
        "listings: {} nvdisasm runs, {:.1} s",
        listed_runs,
        started.elapsed().as_secs_f64()
    );

    let mut disagreements: Vec<Disagreement> = Vec::new();
    let mut per_kind: BTreeMap<Kind, [usize; 3]> = BTreeMap::new();
    let mut outcomes = Vec::with_capacity(list.words.len());
    for (i, (&w, v)) in list.words.iter().zip(&verdicts).enumerate() {
        let o = check(w, v, false, &list.origins[i], &mut disagreements);
        outcomes.push(o);
        let e = per_kind.entry(list.origins[i].kind).or_default();
        e[match o {
            Outcome::AgreeTld4 => 0,
            Outcome::AgreeRefused => 1,
            Outcome::Disagree => 2,
        }] += 1;
    }

    // The opex table, value by value, per base and form.
    // Looked up by word, since a repeated word keeps its first origin (a flip or a base).
    let index: HashMap<u128, usize> = list
        .words
        .iter()
        .enumerate()
        .map(|(i, &w)| (w, i))
        .collect();
    let mut opex_legal: BTreeMap<(u8, HandleForm), BTreeSet<u8>> = BTreeMap::new();
    for (b, (_, make)) in words::BASES.iter().enumerate() {
        for form in HandleForm::ALL {
            let set = opex_legal.entry((b as u8, form)).or_default();
            for opex in 0..=255u8 {
                let w = words::with_opex(make(form), opex);
                let i = *index
                    .get(&w)
                    .ok_or_else(|| format!("opex word {w:032x} was not checked"))?;
                if matches!(verdicts[i], Verdict::Tld4(_)) {
                    set.insert(opex);
                }
            }
        }
    }
    let table: BTreeSet<u8> = LEGAL_OPEX_VALUES.iter().copied().collect();
    for ((base, form), legal) in &opex_legal {
        let fmt = |s: &BTreeSet<u8>| {
            s.iter()
                .map(|v| format!("{v:#04x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        if *legal != table {
            disagreements.push(Disagreement {
                category: Category::OpexTable,
                word: words::BASES[*base as usize].1(*form),
                origin: format!(
                    "all 256 opex values in base `{}` form {:#x}",
                    words::BASES[*base as usize].0,
                    form.opcode()
                ),
                nvdisasm: format!("legal: {}", fmt(legal)),
                ours: format!("legal: {}", fmt(&table)),
            });
        }
        println!(
            "opex: base `{}` form {:#x}: nvdisasm accepts {} of 256 values{}",
            words::BASES[*base as usize].0,
            form.opcode(),
            legal.len(),
            if *legal == table {
                ", the same as decoder/src/opex.rs"
            } else {
                ", NOT the decoder's table"
            }
        );
    }

    // One word per file: exact spacing, and the same verdict as in the listing.
    let all: Vec<usize> = (0..list.words.len()).collect();
    let unknown: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| decode(list.words[i]).is_ok_and(|d| d.text().contains("???")))
        .collect();
    let mut chosen = sample(&unknown, args.single * 2 / 3, &mut rng);
    let rest = args.single.saturating_sub(chosen.len());
    let legal_plain: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| outcomes[i] != Outcome::AgreeRefused && !unknown.contains(&i))
        .collect();
    let refused: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| outcomes[i] == Outcome::AgreeRefused)
        .collect();
    chosen.extend(sample(&legal_plain, rest / 2, &mut rng));
    chosen.extend(sample(&refused, rest - rest / 2, &mut rng));
    chosen.sort_unstable();
    let t_single = Instant::now();
    let alone = parallel(&chosen, args.jobs, |&i| nv.verdicts(&[list.words[i]]));
    let mut single_entries = Vec::with_capacity(chosen.len());
    let mut single_unknown = 0;
    for (&i, r) in chosen.iter().zip(alone) {
        let v = r?.pop().ok_or("nvdisasm gave no verdict")?;
        let w = list.words[i];
        let origin = format!("{}, alone in a file", list.origins[i]);
        check(w, &v, true, &origin, &mut disagreements);
        // Another instruction's text may depend on its address (nvdisasm prints a branch's
        // PC-relative target as an absolute address: seen for BRA, opcode 0x947, alone vs in
        // a listing), so for non-TLD4 words only the verdict's kind must agree.
        let both_other = matches!((&v, &verdicts[i]), (Verdict::Other(_), Verdict::Other(_)));
        if !both_other && v.collapsed() != verdicts[i].collapsed() {
            disagreements.push(Disagreement {
                category: Category::AloneVsListing,
                word: w,
                origin,
                nvdisasm: format!(
                    "alone: {} / in a listing: {}",
                    v.describe(),
                    verdicts[i].describe()
                ),
                ours: decode(w).map_or_else(|e| format!("error: {e}"), |d| d.text()),
            });
        }
        if matches!(&v, Verdict::Tld4(t) if t.contains("???")) {
            single_unknown += 1;
        }
        single_entries.push((w, v));
    }
    println!(
        "alone: {} words one per file ({} with `???`), {:.1} s",
        chosen.len(),
        single_unknown,
        t_single.elapsed().as_secs_f64()
    );

    if let Some(path) = &args.write_corpus {
        write_corpus(
            path,
            args,
            seed,
            &version,
            &list,
            &verdicts,
            &single_entries,
        )?;
    }

    // Report.
    for d in &disagreements {
        println!("{d}");
    }
    println!();
    println!(
        "summary (seed {seed}; {} nvdisasm runs; {:.1} s):",
        nv.runs(),
        started.elapsed().as_secs_f64()
    );
    println!(
        "  {:<44} {:>8} {:>8} {:>8} {:>8}",
        "words", "total", "TLD4", "refused", "disagree"
    );
    let mut totals = [0usize; 3];
    for kind in Kind::ALL {
        let c = per_kind.get(&kind).copied().unwrap_or_default();
        for k in 0..3 {
            totals[k] += c[k];
        }
        println!(
            "  {:<44} {:>8} {:>8} {:>8} {:>8}",
            kind.name(),
            c.iter().sum::<usize>(),
            c[0],
            c[1],
            c[2]
        );
    }
    println!(
        "  {:<44} {:>8} {:>8} {:>8} {:>8}",
        "all",
        totals.iter().sum::<usize>(),
        totals[0],
        totals[1],
        totals[2]
    );
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    for v in &verdicts {
        let key = match v {
            Verdict::Tld4(_) => continue,
            Verdict::Other(_) => "another instruction".to_string(),
            Verdict::Silent => "accepted, nothing printed".to_string(),
            Verdict::Refused(m) if m.contains("undefined value") => {
                let table = m.rsplit_once("for table ").map_or("", |(_, t)| t);
                format!("undefined value for table {table}")
            }
            Verdict::Refused(m) => m.clone(),
        };
        *refusals.entry(key).or_default() += 1;
    }
    println!("  nvdisasm's refusals and non-TLD4 verdicts:");
    for (k, n) in &refusals {
        println!("    {n:>8}  {k}");
    }
    println!("  disagreements:");
    for c in Category::ALL {
        println!(
            "    {:>8}  {}",
            disagreements.iter().filter(|d| d.category == c).count(),
            c.name()
        );
    }
    let sm100_ok = if disagreements.is_empty() {
        println!("result: the decoder agrees with nvdisasm on every word");
        true
    } else {
        println!(
            "result: {} disagreements (replay with --seed {seed})",
            disagreements.len()
        );
        false
    };
    let arches_ok = args.arch_random == 0 || run_arches(args, &nv, seed)?;
    Ok(sm100_ok && arches_ok)
}

/// Which field-value words go into the corpus (to keep it a few MB): every value of the
/// fields of at most 8 bits on the first two bases, and every opcode; the wider ignored fields
/// are covered there by the bit flips.
fn in_corpus(o: &words::Origin) -> bool {
    let spec = &tld4_decoder::FIELDS[o.field as usize];
    match spec.name {
        "form" => o.base == 0,
        _ => spec.width() <= 8 && o.base <= 1,
    }
}

fn write_corpus(
    path: &std::path::Path,
    args: &Args,
    seed: u64,
    version: &str,
    list: &WordList,
    verdicts: &[Verdict],
    single: &[(u128, Verdict)],
) -> Result<(), String> {
    let cmd = format!(
        "cargo run --release -p tld4-nvdisasm-oracle -- --random {} --seed {seed} --single {} --corpus-random {} --write-corpus {}",
        args.random,
        args.single,
        args.corpus_random,
        path.display()
    );
    let header = |what: &str, spacing: &str| -> Vec<String> {
        vec![
            format!("nvdisasm golden corpus for SM100 TLD4: {what}"),
            format!("generated by oracles/nvdisasm with {version} (PyPI nvidia-cuda-nvdisasm), `nvdisasm -b SM100 FILE`"),
            format!("command: {cmd}"),
            format!("seed: {seed}; random words in the harness run: {}", args.random),
            format!("spacing: {spacing}"),
            "format: <32 hex digits: hi<<64 | lo>\\t<nvdisasm's text> | error: <nvdisasm's message, without its address>"
                .to_string(),
            "        | other: <another instruction's text> | other: (nothing printed)".to_string(),
            "checked offline by tests/nvdisasm_corpus.rs (cargo test)".to_string(),
        ]
    };
    let mut groups: Vec<(String, Vec<(u128, Verdict)>)> = Vec::new();
    let mut by_kind: BTreeMap<Kind, Vec<(u128, Verdict)>> = BTreeMap::new();
    let mut random_taken = 0;
    for (i, o) in list.origins.iter().enumerate() {
        if o.kind == Kind::FieldValue && !in_corpus(o) {
            continue;
        }
        if o.kind.is_random() {
            if random_taken >= args.corpus_random {
                continue;
            }
            random_taken += 1;
        }
        by_kind
            .entry(o.kind)
            .or_default()
            .push((list.words[i], verdicts[i].clone()));
    }
    for (k, v) in by_kind {
        let name = match k {
            Kind::FieldValue => format!(
                "{} of at most 8 bits, on bases `ptxas` and `varied` in both forms, and all 4096 opcodes",
                k.name()
            ),
            Kind::Base | Kind::BitFlip | Kind::Opex => format!("{} (bases `ptxas`, `varied`, `maxed`, both forms)", k.name()),
            k => k.name().to_string(),
        };
        groups.push((name, v));
    }
    let spacing = "runs of spaces collapsed to one (nvdisasm aligns the column before a `???255` operand \
                   across a listing; a one-word file has 1 + guard width spaces there, see the _single file)";
    let stats = corpus::write(path, &header("words in listings", spacing), &groups, true)
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
    println!(
        "corpus: {} ({} lines: {} TLD4, {} error, {} other)",
        path.display(),
        stats.lines,
        stats.tld4,
        stats.errors,
        stats.other
    );
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("corpus");
    let ext = path.extension().and_then(|s| s.to_str()).unwrap_or("tsv");
    let single_path = path.with_file_name(format!("{stem}_single.{ext}"));
    let groups = vec![("one word per file".to_string(), single.to_vec())];
    let stats = corpus::write(
        &single_path,
        &header(
            "words run one per file",
            "exactly as nvdisasm printed a file holding the word alone",
        ),
        &groups,
        false,
    )
    .map_err(|e| format!("writing {}: {e}", single_path.display()))?;
    println!(
        "corpus: {} ({} lines: {} TLD4, {} error, {} other)",
        single_path.display(),
        stats.lines,
        stats.tld4,
        stats.errors,
        stats.other
    );
    Ok(())
}
