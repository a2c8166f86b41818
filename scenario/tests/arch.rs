//! Scenarios of other architectures: the committed constant-bank scenario
//! (`scenario/tests/arch/constant_bank_sm90.json`, SM90's 0xb63 reading its handle at
//! `c[3][0x40]`) executes, and its results are the same gather through SM100's forms (the
//! handle in UR4, and in the first Rb register), never numbers written down here; and every
//! error of the `arch` and `constants` keys names its JSON path.

use std::path::Path;

use serde_json::{json, Value};
use tld4_scenario::{load_arch, load_with, LoadOptions};

const SCENARIO: &str = include_str!("arch/constant_bank_sm90.json");

fn results(w: &tld4_emu::WarpState) -> Vec<[u32; 4]> {
    (0..32)
        .map(|l| [w.reg(l, 8), w.reg(l, 9), w.reg(l, 10), w.reg(l, 11)])
        .collect()
}

fn sm100(edit: impl FnOnce(&mut Value)) -> Vec<[u32; 4]> {
    let mut v: Value = serde_json::from_str(SCENARIO).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("arch");
    o.remove("constants");
    edit(&mut v);
    let s = load_with(&v.to_string(), Path::new(""), &LoadOptions::default()).unwrap();
    results(&s.execute().unwrap().warp)
}

#[test]
fn the_constant_bank_scenario_gathers_as_the_sm100_forms() {
    let s = load_arch(SCENARIO, Path::new(""), &LoadOptions::default()).unwrap();
    assert_eq!(s.insn.opcode, 0xb63);
    let slot = s.insn.constant_slot().unwrap();
    assert_eq!((slot.bank, slot.offset), (3, 0x40));
    let got = results(&s.execute().unwrap().warp);
    // SM100, handle in UR4 (Rb = R24 keeps the offsets).
    let uniform = sm100(|v| {
        v["instruction"] = json!("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;");
        v["uniform"] = json!({"UR4": "albedo"});
    });
    // SM100, handle in the first Rb register (R30), the offsets after it (R31).
    let register = sm100(|v| {
        v["instruction"] = json!("TLD4.G.B.AOFFI R10, R8, R20, R30, 2D ;");
        let lanes = v["lanes"].as_array_mut().unwrap();
        lanes[0]["R30"] = json!("albedo");
        lanes[0]["R31"] = json!(0);
        lanes[1]["R31"] = json!("0x0000003f");
    });
    assert_eq!(got, uniform);
    assert_eq!(got, register);
    // The offsets matter: lanes 0-15 and 16-31 gather different texels.
    assert_ne!(got[0], got[16]);
}

/// A change to the committed scenario.
type Edit = Box<dyn FnOnce(&mut Value)>;

fn arch_error(edit: impl FnOnce(&mut Value)) -> (String, String) {
    let mut v: Value = serde_json::from_str(SCENARIO).unwrap();
    edit(&mut v);
    let e = load_arch(&v.to_string(), Path::new(""), &LoadOptions::default()).unwrap_err();
    (e.path.clone(), e.to_string())
}

#[test]
fn constants_and_arch_errors_name_their_json_path() {
    let cases: Vec<(Edit, &str, &str)> = vec![
        (
            Box::new(|v| v["constants"][0]["bank"] = json!(32)),
            "constants[0].bank",
            "0..31",
        ),
        (
            Box::new(|v| v["constants"][0]["words"][0] = json!("nosuch")),
            "constants[0].words[0]",
            "nosuch",
        ),
        (
            Box::new(|v| v["constants"][0]["offset"] = json!("0xfffe")),
            "constants[0].words",
            "64 KiB",
        ),
        (
            Box::new(|v| v["constants"][0]["offset"] = json!(0.5)),
            "constants[0].offset",
            "byte offset",
        ),
        (
            Box::new(|v| v["constants"][0]["size"] = json!(1)),
            "constants[0].size",
            "unknown field",
        ),
        (
            Box::new(|v| v["constants"] = json!({"bank": 3})),
            "constants",
            "sequence",
        ),
        (Box::new(|v| v["arch"] = json!("sm_70")), "arch", "sm_70"),
        (
            Box::new(|v| v["instruction"] = json!("TLD4.G.AOFFI R10, R8, R20, R24, 0x3, 2D ;")),
            "instruction",
            "",
        ),
    ];
    for (edit, path, says) in cases {
        let (p, msg) = arch_error(edit);
        assert_eq!(p, path, "{msg}");
        assert!(msg.contains(says), "{msg}");
    }
    // The SM100 loader refuses `arch` and `constants`, naming them.
    let e = load_with(SCENARIO, Path::new(""), &LoadOptions::default()).unwrap_err();
    assert_eq!(e.path, "arch");
}

#[test]
fn without_constants_the_warp_faults_with_no_constant() {
    let mut v: Value = serde_json::from_str(SCENARIO).unwrap();
    v.as_object_mut().unwrap().remove("constants");
    let s = load_arch(&v.to_string(), Path::new(""), &LoadOptions::default()).unwrap();
    let e = s.execute().unwrap_err();
    assert_eq!(e.kind_name(), "no_constant");
    assert!(e.to_string().contains("c[0x3][0x40]"), "{e}");
    // The constant in another bank: still none at c[3][0x40].
    v["constants"] = json!([{"bank": 2, "offset": "0x40", "words": ["albedo"]}]);
    let s = load_arch(&v.to_string(), Path::new(""), &LoadOptions::default()).unwrap();
    assert_eq!(s.execute().unwrap_err().kind_name(), "no_constant");
}
