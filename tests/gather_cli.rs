//! `tld4 gather`: the front end in src/gather.rs, run on real files.
//! Runs the built `tld4` binary on files in the temp directory.

use crate::common::TempFile;

const CASES: &str = r#"{"cases": [{
  "texture": {"dim": "2d", "format": "r8_unorm", "width": 2, "height": 2, "layers": 1, "texels": [0, 51, 102, 255]},
  "sampler": {"address_u": "clamp_to_edge", "address_v": "clamp_to_edge", "border": "float_transparent_black", "compare": null},
  "queries": [{"coord": [0.5, 0.5], "component": 0, "offset": null, "offsets": null, "dref": null}]
}]}"#;

mod cli {
    use super::*;
    use std::process::{Command, Output};

    fn tld4(args: &[&str], path: &std::path::Path) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tld4"))
            .args(args)
            .arg(path)
            .output()
            .unwrap()
    }

    fn stdout(o: &Output) -> String {
        String::from_utf8(o.stdout.clone()).unwrap()
    }

    fn stderr(o: &Output) -> String {
        String::from_utf8(o.stderr.clone()).unwrap()
    }

    #[test]
    fn prints_the_cases_with_results() {
        let f = TempFile::new("print", CASES);
        let o = tld4(&["gather"], &f.0);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        // texels (x, y): (0,0)=0, (1,0)=51, (0,1)=102, (1,1)=255; order (0,1) (1,1) (1,0) (0,0)
        assert_eq!(
            v["cases"][0]["queries"][0]["result"],
            serde_json::json!([0.4, 1.0, 0.2, 0.0])
        );
        assert_eq!(
            v["cases"][0]["texture"]["texels"],
            serde_json::json!([0, 51, 102, 255])
        );
        assert!(
            stdout(&o).contains("\"result\": [0.4, 1.0, 0.2, 0.0]"),
            "{}",
            stdout(&o)
        );
    }

    #[test]
    fn check_passes_on_its_own_output_and_fails_on_a_wrong_result() {
        let f = TempFile::new("check-ok", CASES);
        let printed = stdout(&tld4(&["gather"], &f.0));
        let g = TempFile::new("check-printed", &printed);
        let o = tld4(&["gather", "--check"], &g.0);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), "checked 1 queries: 0 mismatches\n");

        let wrong = printed.replace("[0.4, 1.0, 0.2, 0.0]", "[0.4, 1.0, 0.2, 0.5]");
        assert_ne!(wrong, printed);
        let h = TempFile::new("check-wrong", &wrong);
        let o = tld4(&["gather", "--check"], &h.0);
        assert_eq!(o.status.code(), Some(1));
        let out = stdout(&o);
        assert!(
            out.starts_with("mismatch cases[0].queries[0]: expected [0.4, 1.0, 0.2, 0.5], got [0.4, 1.0, 0.2, 0.0]\n"),
            "{out}"
        );
        assert!(out.ends_with("checked 1 queries: 1 mismatch\n"), "{out}");
        // a query without a result is a mismatch under --check
        let o = tld4(&["gather", "--check"], &f.0);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            stdout(&o).contains("cases[0].queries[0]: no result to check"),
            "{}",
            stdout(&o)
        );
    }

    #[test]
    fn errors_name_the_file_or_the_json_path_and_never_panic() {
        let o = tld4(&["gather"], std::path::Path::new("/nonexistent/cases.json"));
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("cannot read /nonexistent/cases.json"),
            "{}",
            stderr(&o)
        );
        let bad = CASES.replace("\"offset\": null", "\"offset\": [99, 0]");
        let f = TempFile::new("bad", &bad);
        for args in [&["gather"][..], &["gather", "--check"][..]] {
            let o = tld4(args, &f.0);
            assert!(!o.status.success());
            assert!(o.stdout.is_empty());
            let e = stderr(&o);
            assert!(
                e.contains("cases[0].queries[0].offset[0]: offset 99 is outside -32..=31"),
                "{e}"
            );
            assert!(!e.contains("panicked"), "{e}");
        }
        let f = TempFile::new(
            "component",
            &CASES.replace("\"component\": 0", "\"component\": 9"),
        );
        let e = stderr(&tld4(&["gather"], &f.0));
        assert!(e.contains("cases[0].queries[0].component"), "{e}");
        let f = TempFile::new("syntax", "{\"cases\": [");
        let o = tld4(&["gather"], &f.0);
        assert!(!o.status.success());
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
}
