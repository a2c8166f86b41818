//! The processes of a run: the parent (`run_all`: driver check, JIT, kernel choice, one child
//! process per phase within a time budget, the merged `hw_results.json`) and a child
//! (`run_child`: one phase, written to `phases/<name>.json`).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::cuda::{self, Cuda};
use crate::kernels;

use super::context::{Ctx, KernelSource};
use super::date::utc_now;
use super::phases::variants::phase_risky;
use super::phases::{risky_phases, PHASES};
use super::{NOT_SM90, SCHEMA, SENTINELS};

/// What the owner asks for with `run --kernels`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// The sm_90 cubin on an SM90 GPU (compute capability 9.0), the driver's JIT elsewhere.
    Auto,
    /// The committed sm_90 cubin.
    Sm90,
    /// The portable PTX compiled by the driver.
    Jit,
    /// A cubin built from the portable PTX with ptxas or nvcc.
    File(std::path::PathBuf),
}

impl std::str::FromStr for KernelChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => KernelChoice::Auto,
            "sm90" => KernelChoice::Sm90,
            "jit" => KernelChoice::Jit,
            "" => return Err("--kernels: auto, sm90, jit or a cubin file".into()),
            f => KernelChoice::File(f.into()),
        })
    }
}

/// Runs one phase here and writes `phases/<name>.json`.
pub fn run_child(name: &str, out: &Path, source: &KernelSource) -> Result<(), String> {
    let dir = out.join("phases");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut cx = Ctx::open(source)?;
    let data = if let Some(v) = name.strip_prefix("risky:") {
        phase_risky(&mut cx, v)
    } else {
        let p = PHASES
            .iter()
            .find(|p| p.name == name)
            .ok_or_else(|| format!("no phase {name}"))?;
        (p.run)(&mut cx)
    };
    let (ok, data, error) = match data {
        Ok(d) => (true, d, Value::Null),
        Err(e) => (false, Value::Null, json!(e)),
    };
    let v = json!({
        "phase": name, "ok": ok, "error": error, "seconds": started.elapsed().as_secs_f64(),
        "textures": cx.textures, "data": data,
    });
    let file = dir.join(format!("{}.json", name.replace(':', "_")));
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).map_err(|e| e.to_string())?;
    if ok {
        Ok(())
    } else {
        Err(format!("phase {name} failed: {}", v["error"]))
    }
}

fn run_one(name: &str, out: &Path, source: &KernelSource, limit: Duration) -> Value {
    let started = Instant::now();
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return json!({ "phase": name, "outcome": "not started", "error": e.to_string() }),
    };
    let child = Command::new(exe)
        .args(["child", "--phase", name, "--out"])
        .arg(out)
        .arg("--kernels")
        .arg(source.arg())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return json!({ "phase": name, "outcome": "not started", "error": e.to_string() }),
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break None,
        }
    };
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let tail: String = err
        .chars()
        .rev()
        .take(2000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    json!({
        "phase": name,
        "outcome": match status { Some(s) if s.success() => "ok".to_string(), Some(s) => format!("exit {s}"), None => format!("killed after {}s", limit.as_secs()) },
        "seconds": started.elapsed().as_secs_f64(),
        "stderr_tail": tail,
    })
}

/// The driver's JIT compilation of the portable PTX for the GPU at hand, written to
/// `OUT/kernels/tld4_probe.<arch>.jit.cubin`, with its TLD4 words (always done: it is the
/// "each architecture's forms" measurement, and the kernels of a JIT run).
fn jit_portable(cuda: &Cuda, out: &Path, cc: (i32, i32)) -> (Value, Option<std::path::PathBuf>) {
    let ptx = crate::ptx::ptx_source_for(&crate::ptx::PORTABLE);
    let dir = out.join("kernels");
    let arch = format!("sm_{}{}", cc.0, cc.1);
    match cuda.jit_ptx(&ptx) {
        Ok(j) => {
            let file = dir.join(format!("tld4_probe.{arch}.jit.cubin"));
            let written = std::fs::create_dir_all(&dir)
                .and_then(|_| std::fs::write(&file, &j.cubin))
                .map_err(|e| e.to_string());
            let forms = crate::forms::cubin_forms(&j.cubin);
            let v = json!({
                "ok": true,
                "file": file.strip_prefix(out).unwrap_or(&file).display().to_string(),
                "write_error": written.as_ref().err(),
                "cubin_fnv1a64": format!("{:016x}", crate::layout::fnv1a64(&j.cubin)),
                "info_log": j.info_log,
                "forms": forms.as_ref().ok(),
                "forms_error": forms.as_ref().err(),
            });
            let _ = cuda.unload(j.module);
            (v, written.ok().map(|_| file))
        }
        Err(e) => (json!({ "ok": false, "error": e.to_string() }), None),
    }
}

/// The whole run: checks the driver, JIT-compiles the portable PTX, picks the kernels, runs
/// every phase (or the chosen ones) in child processes, merges `hw_results.json`.
pub fn run_all(
    out: &Path,
    only: &[String],
    budget_s: u64,
    choice: &KernelChoice,
) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let cuda = Cuda::open()?;
    let cc = (
        cuda.attribute(cuda::ATTR_CC_MAJOR).unwrap_or(-1),
        cuda.attribute(cuda::ATTR_CC_MINOR).unwrap_or(-1),
    );
    let device = json!({
        "name": cuda.device_name().map_err(|e| e.to_string())?,
        "driver_api_version": cuda.driver_version().map_err(|e| e.to_string())?,
        "compute_capability": format!("{}.{}", cc.0, cc.1),
        "proc_driver_version": std::fs::read_to_string("/proc/driver/nvidia/version").unwrap_or_default().lines().next().unwrap_or("").to_string(),
    });
    let date = utc_now();
    eprintln!(
        "tld4-hw-probe: {} (compute capability {}.{}, driver API {}), {date}",
        device["name"], cc.0, cc.1, device["driver_api_version"]
    );
    let (jit, jit_file) = jit_portable(&cuda, out, cc);
    eprintln!(
        "  jit: {}",
        if jit["ok"] == true {
            "the driver compiled the portable PTX".to_string()
        } else {
            format!("failed: {}", jit["error"])
        }
    );
    let source = kernel_source(choice, cc, &jit, &jit_file)?;
    let (kernels_json, loaded) = kernels_record(&source, &jit_file)?;
    // Unreadable forms are recorded, not fatal: the gathers are the measurement.
    let loaded_forms = match crate::forms::cubin_forms(&loaded) {
        Ok(f) => serde_json::to_value(f).unwrap(),
        Err(e) => json!({ "error": e }),
    };
    let sm90 = source == KernelSource::Sm90Cubin;
    let mut names: Vec<String> = PHASES.iter().map(|p| p.name.to_string()).collect();
    if sm90 {
        names.extend(risky_phases());
    }
    if !only.is_empty() {
        names.retain(|n| only.contains(n));
    }
    let children = run_children(&names, sm90, out, &source, budget_s);
    let phases = read_phases(out, &names);
    let mut probe = kernels_json;
    probe["sentinels"] = json!(SENTINELS);
    probe["portable_ptx_fnv1a64"] = json!(portable_ptx_hash());
    let all = json!({
        "schema": SCHEMA,
        "synthetic": false,
        "device": device,
        "date_utc": date,
        "probe": probe,
        "forms": { "loaded": loaded_forms, "jit": jit },
        "children": children,
        "phases": phases,
    });
    let file = out.join("hw_results.json");
    std::fs::write(&file, serde_json::to_string(&all).unwrap()).map_err(|e| e.to_string())?;
    eprintln!("tld4-hw-probe: results in {}", file.display());
    Ok(())
}

/// The kernels `run --kernels` picks on a GPU of compute capability `cc`: the sm_90 cubin on
/// SM90 (or when asked), the driver's JIT cubin elsewhere (an error when the JIT failed).
fn kernel_source(
    choice: &KernelChoice,
    cc: (i32, i32),
    jit: &Value,
    jit_file: &Option<std::path::PathBuf>,
) -> Result<KernelSource, String> {
    Ok(match choice {
        KernelChoice::Sm90 => KernelSource::Sm90Cubin,
        KernelChoice::Auto if cc == (9, 0) => KernelSource::Sm90Cubin,
        KernelChoice::Auto | KernelChoice::Jit => {
            KernelSource::File(jit_file.clone().ok_or_else(|| {
                format!(
                    "the driver could not compile the portable PTX: {}",
                    jit["error"]
                )
            })?)
        }
        KernelChoice::File(p) => KernelSource::File(p.clone()),
    })
}

/// What `hw_results.json` records of the run's kernels (source, ptxas, hashes, raw layout),
/// and the cubin's bytes.
fn kernels_record(
    source: &KernelSource,
    jit_file: &Option<std::path::PathBuf>,
) -> Result<(Value, Vec<u8>), String> {
    Ok(match source {
        KernelSource::Sm90Cubin => {
            let l = kernels::layout()?;
            (
                json!({ "source": "sm90_cubin", "ptxas": l.ptxas, "cubin_fnv1a64": l.cubin_fnv1a64, "raw_layout": l.raw }),
                kernels::CUBIN.to_vec(),
            )
        }
        KernelSource::File(p) => {
            let b = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let src = if Some(p) == jit_file.as_ref() {
                "jit"
            } else {
                "cubin"
            };
            (
                json!({ "source": src, "file": p.display().to_string(), "cubin_fnv1a64": format!("{:016x}", crate::layout::fnv1a64(&b)) }),
                b,
            )
        }
    })
}

/// Runs each named phase in a child process of its own, within `budget_s` seconds in all
/// (patched-only phases are skipped off SM90, and phases the budget leaves no time for); one
/// record per phase.
fn run_children(
    names: &[String],
    sm90: bool,
    out: &Path,
    source: &KernelSource,
    budget_s: u64,
) -> Vec<Value> {
    let started = Instant::now();
    let mut children = Vec::new();
    for n in names {
        if !sm90 && PHASES.iter().any(|p| p.name == n && p.patched_only) {
            children.push(json!({ "phase": n, "outcome": format!("skipped: {NOT_SM90}") }));
            continue;
        }
        if started.elapsed().as_secs() > budget_s {
            children.push(json!({ "phase": n, "outcome": "skipped: time budget spent" }));
            continue;
        }
        // Each phase gets its own limit, cut to what is left of the budget (at least 10 s), so
        // that the whole run ends within budget_s plus a little.
        let left = budget_s.saturating_sub(started.elapsed().as_secs()).max(10);
        let limit = Duration::from_secs((if n.starts_with("risky:") { 30 } else { 120 }).min(left));
        let r = run_one(n, out, source, limit);
        eprintln!(
            "  {n}: {} ({:.1}s)",
            r["outcome"].as_str().unwrap_or("?"),
            r["seconds"].as_f64().unwrap_or(0.0)
        );
        children.push(r);
    }
    children
}

/// The phase files the children wrote (`phases/<name>.json`), by phase name; a missing or
/// unreadable file is left out.
fn read_phases(out: &Path, names: &[String]) -> serde_json::Map<String, Value> {
    let mut phases = serde_json::Map::new();
    for n in names {
        let file = out
            .join("phases")
            .join(format!("{}.json", n.replace(':', "_")));
        if let Ok(s) = std::fs::read_to_string(&file) {
            if let Ok(v) = serde_json::from_str::<Value>(&s) {
                phases.insert(n.clone(), v);
            }
        }
    }
    phases
}

/// The FNV-1a hash of the portable PTX text, recorded with every run (golden data names the
/// kernels it measured).
pub fn portable_ptx_hash() -> String {
    format!(
        "{:016x}",
        crate::layout::fnv1a64(crate::ptx::ptx_source_for(&crate::ptx::PORTABLE).as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_choices_parse_and_children_get_their_source() {
        assert_eq!("auto".parse::<KernelChoice>(), Ok(KernelChoice::Auto));
        assert_eq!("sm90".parse::<KernelChoice>(), Ok(KernelChoice::Sm90));
        assert_eq!("jit".parse::<KernelChoice>(), Ok(KernelChoice::Jit));
        assert_eq!(
            "out/k.cubin".parse::<KernelChoice>(),
            Ok(KernelChoice::File("out/k.cubin".into()))
        );
        assert!("".parse::<KernelChoice>().is_err());
        assert_eq!(KernelSource::Sm90Cubin.arg(), "sm90");
        assert_eq!(KernelSource::File("a/b.cubin".into()).arg(), "a/b.cubin");
        // Only the phases made of patched variants are skipped off SM90.
        let patched: Vec<&str> = PHASES
            .iter()
            .filter(|p| p.patched_only)
            .map(|p| p.name)
            .collect();
        assert_eq!(patched, ["f16", "masks", "scr"]);
    }

    #[test]
    fn the_portable_ptx_hash_is_the_committed_file_s() {
        let file = include_str!("../../kernels/tld4_probe.portable.ptx");
        assert_eq!(
            portable_ptx_hash(),
            format!("{:016x}", crate::layout::fnv1a64(file.as_bytes()))
        );
    }
}
