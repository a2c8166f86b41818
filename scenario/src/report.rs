//! Running a scenario and describing each lane, as `tld4 run` prints it; the fault names of
//! scenario files; warnings about suspicious inputs.

use tld4_emu::{MemoryExecError, OutputMode, WARP_SIZE};

use crate::builder::Scenario;
use crate::value::{matches, Loc};

/// The name of a fault in scenario files: its [`tld4_emu::FaultKind`] name (one mapping for
/// the library, the CLI and `expect.fault`; a failed descriptor or texel read of textures in
/// memory has one too, [`MemoryExecError::kind`]).
pub fn fault_kind(f: &MemoryExecError) -> &'static str {
    f.kind().name()
}

/// Formats a register value: hex, then as f32 and u32 (the two halves with F16 output).
pub fn show_value(bits: u32, mode: OutputMode) -> String {
    match mode {
        OutputMode::F32 => format!("{bits:#010x} (f32 {:?}, u32 {bits})", f32::from_bits(bits)),
        _ => {
            let h = |x: u32| half::f16::from_bits(x as u16).to_f32();
            format!(
                "{bits:#010x} (f16 lo {}, hi {})",
                h(bits & 0xffff),
                h(bits >> 16)
            )
        }
    }
}

/// What running a scenario gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The report, one line each.
    pub lines: Vec<String>,
    /// Passed checks (lanes, or the fault expectation).
    pub passed: usize,
    /// Failed checks.
    pub failed: usize,
}

/// Warnings about inputs that are valid but probably not what was meant: a layer register
/// (read as an unsigned 16-bit integer in bits 15:0, ptxas output) holding bits above bit 15,
/// as a float such as 2.0 (0x40000000, layer 0) does. One line per register value.
pub fn warnings(s: &Scenario) -> Vec<String> {
    let mut out = Vec::new();
    if !s.insn.ra_layout().layer || s.insn.ra.is_rz() {
        return out;
    }
    let r = s.insn.ra.0;
    let mut seen: Vec<(u32, u32)> = Vec::new(); // (bits, lanes)
    for lane in (0..WARP_SIZE).filter(|l| s.warp.active_mask >> l & 1 != 0) {
        let bits = s.warp.reg(lane, r);
        if bits >> 16 == 0 {
            continue;
        }
        match seen.iter_mut().find(|(b, _)| *b == bits) {
            Some((_, m)) => *m |= 1 << lane,
            None => seen.push((bits, 1 << lane)),
        }
    }
    for (bits, mask) in seen {
        out.push(format!(
            "warning: R{r} (the layer register) = {bits:#010x} in lanes {}: the layer is the unsigned integer in bits 15:0 (= {}); the value looks like {} (f32 {:?}); give the layer as an integer",
            lane_list(mask),
            bits & 0xffff,
            if f32::from_bits(bits).is_finite() && bits & 0xffff == 0 { "a float" } else { "more than a 16-bit layer" },
            f32::from_bits(bits)
        ));
    }
    out
}

/// `0-3,7` for a lane mask.
fn lane_list(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && mask >> l & 1 != 0 {
            l += 1;
        }
        parts.push(if l - 1 == start {
            format!("{start}")
        } else {
            format!("{start}-{}", l - 1)
        });
    }
    parts.join(",")
}

/// Runs a scenario (on a copy of its warp) and describes each lane.
pub fn run(s: &Scenario) -> Outcome {
    describe(s, &s.execute())
}

/// Describes each lane of one execution of `s` (its result, as [`Scenario::execute`] gives
/// it): the lines [`run`] prints, pass or fail per lane, and the fault.
pub fn describe(
    s: &Scenario,
    result: &Result<crate::builder::Executed, MemoryExecError>,
) -> Outcome {
    let head = vec![format!("instruction: {}  ({:032x})", s.insn, s.word)];
    describe_lines(
        s,
        head,
        result.as_ref().map_err(|f| (fault_kind(f), f.to_string())),
    )
}

/// [`describe`] after the lines `head`, for a result whose fault is given as its kind name
/// and sentence.
pub(crate) fn describe_lines(
    s: &Scenario,
    head: Vec<String>,
    result: Result<&crate::builder::Executed, (&'static str, String)>,
) -> Outcome {
    let mut lines = head;
    let (mut passed, mut failed) = (0, 0);
    match result {
        Err((kind, fault)) => {
            lines.push(format!("fault ({kind}): {fault}"));
            if s.has_expect {
                let ok = s.expect_fault.map(|k| k.name()) == Some(kind);
                lines.push(format!(
                    "{}: expected {}",
                    if ok { "pass" } else { "FAIL" },
                    s.expect_fault
                        .map_or("results, not a fault".to_string(), |f| format!(
                            "the fault {}",
                            f.name()
                        ))
                ));
                if ok {
                    passed += 1
                } else {
                    failed += 1
                }
            }
        }
        Ok(run) => {
            if let Some(f) = s.expect_fault {
                lines.push(format!(
                    "FAIL: expected the fault {}, but the instruction executed",
                    f.name()
                ));
                failed += 1;
            }
            let dests = s.exec.destinations();
            let pdst = s.insn.pred_dst;
            let mode = s.exec.output_mode();
            for lane in 0..WARP_SIZE {
                let mut line = format!("lane {lane:2}:");
                if run.executed(lane) {
                    for &r in &dests {
                        line.push_str(&format!("  R{r} = {}", show_value(run.reg(lane, r), mode)));
                    }
                    if !pdst.is_pt() {
                        line.push_str(&format!("  P{} = {}", pdst.0, run.pred(lane, pdst.0)));
                    }
                    if dests.is_empty() && pdst.is_pt() {
                        line.push_str("  (writes nothing)");
                    }
                } else {
                    line.push_str("  (not executed)");
                }
                let checks = &s.expect[lane];
                if !checks.is_empty() {
                    let mut bad = Vec::new();
                    for c in checks {
                        let (bits, pred) = match c.loc {
                            Loc::Reg(r) => (run.reg(lane, r), false),
                            Loc::Pred(p) => (0, run.pred(lane, p)),
                        };
                        if !matches(c.value, c.tolerance, bits, pred) {
                            let got = match c.loc {
                                Loc::Reg(_) => show_value(bits, OutputMode::F32),
                                Loc::Pred(_) => pred.to_string(),
                            };
                            bad.push(format!(
                                "{} = {got}, expected {} ({})",
                                c.loc, c.value, c.source
                            ));
                        }
                    }
                    if bad.is_empty() {
                        passed += 1;
                        line.push_str("  [pass]");
                    } else {
                        failed += 1;
                        line.push_str(&format!("  [FAIL: {}]", bad.join("; ")));
                    }
                }
                lines.push(line);
            }
        }
    }
    if s.has_expect {
        lines.push(format!("{passed} passed, {failed} failed"));
    }
    Outcome {
        lines,
        passed,
        failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_lists_are_compact() {
        assert_eq!(lane_list(0x8000_000f), "0-3,31");
        assert_eq!(lane_list(1 << 5), "5");
        assert_eq!(lane_list(u32::MAX), "0-31");
    }
}
