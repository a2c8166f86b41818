//! `tld4 explain --scenario FILE` without an instruction (the scenario's own, as the page's
//! "copy as scenario" gives it), and scenarios naming `arch` (read for their architecture) or
//! `constants` (refused, with the reason).

use super::*;
use common::text;
use serde_json::{json, Value};

/// A scratch directory for this test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tld4-explain-doc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The scenario document `explain --print-scenario` makes for a question (the page's "copy as
/// scenario" is the same document, `scenario_json`).
fn question_doc() -> Value {
    let o = tld4(&[
        "explain",
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D",
        "--texture",
        "5x3",
        "--coord",
        "0.31,0.77",
        "--address",
        "mirrored_repeat",
        "--offset=-2,1",
        "--print-scenario",
    ]);
    assert!(o.status.success(), "{o:?}");
    serde_json::from_slice(&o.stdout).unwrap()
}

fn results_line(out: &str) -> String {
    out.lines()
        .find(|l| l.trim_start().starts_with("results (x, y, z, w)"))
        .unwrap_or_else(|| panic!("no results in\n{out}"))
        .to_string()
}

#[test]
fn a_copied_scenario_is_explained_without_the_instruction() {
    let d = scratch("copied");
    let path = d.join("copied.json");
    std::fs::write(&path, question_doc().to_string()).unwrap();
    let p = path.to_str().unwrap();
    let alone = tld4(&["explain", "--scenario", p]);
    assert!(alone.status.success(), "{alone:?}");
    let with = tld4(&[
        "explain",
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        p,
    ]);
    assert!(with.status.success(), "{with:?}");
    assert_eq!(stdout(&alone), stdout(&with));
    // Neither an instruction nor a scenario: a clear error, no panic.
    let none = tld4(&["explain"]);
    assert!(!none.status.success());
    assert!(
        text(&none.stderr).contains("give the instruction"),
        "{none:?}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_scenario_naming_arch_is_read_for_its_architecture() {
    let d = scratch("arch");
    let base = question_doc();
    let mut doc = base.clone();
    doc["arch"] = json!("sm_90");
    // SM90's uniform form carries an immediate after URc (nvdisasm's text for sm_90).
    doc["instruction"] = json!("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 0x0, 2D ;");
    let path = d.join("sm90.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let p = path.to_str().unwrap();
    let o = tld4(&["explain", "--scenario", p]);
    assert!(o.status.success(), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.starts_with("sm_90: TLD4.G.AOFFI R10, R8, R20, R24, UR4, 0x0, 2D ;"),
        "{out}"
    );
    // The same gather as the SM100 question it was made from.
    let plain = d.join("sm100.json");
    std::fs::write(&plain, base.to_string()).unwrap();
    let want = tld4(&["explain", "--scenario", plain.to_str().unwrap()]);
    assert_eq!(results_line(&out), results_line(&stdout(&want)));
    // An --arch that disagrees with the scenario's is refused.
    let o = tld4(&["explain", "--scenario", p, "--arch", "sm_100"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("names arch sm_90"), "{o:?}");
    // The instruction on the command line, the scenario's arch key left in: read as SM100.
    let o = tld4(&[
        "explain",
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        p,
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(results_line(&stdout(&o)), results_line(&out));
    // `constants` (the constant-bank TLD4): refused with the reason, not an internal name.
    let root = env!("CARGO_MANIFEST_DIR");
    let committed = format!("{root}/scenario/tests/arch/constant_bank_sm90.json");
    let o = tld4(&["explain", "--scenario", &committed]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(
        e.contains("constant memory") && !e.contains("load_arch"),
        "{e}"
    );
    let mut c = doc.clone();
    c["constants"] = json!([{ "bank": 3, "words": [0] }]);
    let cp = d.join("constants.json");
    std::fs::write(&cp, c.to_string()).unwrap();
    let o = tld4(&[
        "explain",
        "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D",
        "--scenario",
        cp.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(e.contains("constants:") && !e.contains("load_arch"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `tld4 run --addresses` lists an arch scenario's texel addresses (its executor's), those
/// the same scenario gives on SM100.
#[test]
fn run_addresses_lists_arch_scenarios_through_their_executor() {
    let d = scratch("addresses");
    let plain = question_doc();
    let mut doc = plain.clone();
    doc["arch"] = json!("sm_90");
    doc["instruction"] = json!("TLD4.G.AOFFI R10, R8, R20, R24, UR4, 0x0, 2D ;");
    let path = d.join("sm90.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let plain_path = d.join("sm100.json");
    std::fs::write(&plain_path, plain.to_string()).unwrap();
    let addr = |p: &std::path::Path| -> Vec<String> {
        let o = tld4(&["run", p.to_str().unwrap(), "--addresses"]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
            .lines()
            .filter(|l| l.starts_with("addr lane"))
            .map(str::to_string)
            .collect()
    };
    let got = addr(&path);
    assert!(got.iter().any(|l| l.contains(" at 0x")), "{got:?}");
    assert_eq!(got, addr(&plain_path));
    let _ = std::fs::remove_dir_all(&d);
}

/// The pictures name the address modes (the clamp and the mirrored pictures of one point
/// differ) and, for a float layer, its conversion with the rule's provenance.
#[test]
fn pictures_name_the_address_mode_and_the_float_layer() {
    let d = scratch("pictures");
    let draw = |address: &str, extra: &[&str], name: &str| -> (Vec<u8>, String) {
        let png = d.join(format!("{name}.png"));
        let svg = d.join(format!("{name}.svg"));
        let mut args = vec![
            "explain",
            "TLD4.R R10, R8, R20, R24, UR4, 2D",
            "--texture",
            "4x4",
            "--coord",
            "0,0",
            "--address",
            address,
            "--png",
            png.to_str().unwrap(),
            "--svg",
            svg.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = tld4(&args);
        assert!(o.status.success(), "{o:?}");
        (
            std::fs::read(&png).unwrap(),
            std::fs::read_to_string(&svg).unwrap(),
        )
    };
    let (clamp_png, clamp_svg) = draw("clamp_to_edge", &[], "clamp");
    let (mirror_png, mirror_svg) = draw("mirrored_repeat", &[], "mirror");
    assert_ne!(
        clamp_png, mirror_png,
        "the clamp and mirrored pictures are the same file"
    );
    assert!(clamp_svg.contains("address u clamp_to_edge, v clamp_to_edge"));
    assert!(mirror_svg.contains("address u mirrored_repeat, v mirrored_repeat"));
    // A float layer: the conversion and the decision's provenance in the legend.
    let png = d.join("layer.png");
    let svg = d.join("layer.svg");
    let o = tld4(&[
        "explain",
        "TLD4.R R10, R8, R20, R24, UR4, ARRAY_2D",
        "--texture",
        "4x4x3",
        "--layer",
        "1.6",
        "--png",
        png.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(
        svg.contains("layer 1.6 (float): floor(1.6 + 0.5) = 2"),
        "{svg}"
    );
    assert!(
        svg.contains(&tld4_explain::provenance::legend("float_layer")),
        "{svg}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
