//! Each crate with `autotests = false` builds one integration-test binary from the file its
//! `[[test]]` names; a file in its `tests/` that is not a module of that file would never run.

use std::path::Path;

/// The `[[test]]` paths of a manifest (the `path = "..."` line after a `[[test]]` line).
fn harnesses(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_test = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_test = line == "[[test]]";
        } else if let Some(path) = line.strip_prefix("path = \"").filter(|_| in_test) {
            out.push(path.trim_end_matches('"').to_string());
        }
    }
    out
}

#[test]
fn every_test_file_is_a_module_of_its_crates_test_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut crates = vec![root.to_path_buf()];
    for entry in std::fs::read_dir(root).expect("the repository") {
        let dir = entry.expect("an entry").path();
        if dir.join("Cargo.toml").is_file() {
            crates.push(dir);
        }
    }
    let mut checked = 0;
    for dir in crates {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        if !manifest.contains("\nautotests = false") {
            continue;
        }
        let paths = harnesses(&manifest);
        assert_eq!(paths.len(), 1, "{}: one [[test]] expected", dir.display());
        let harness = dir.join(&paths[0]);
        let text = std::fs::read_to_string(&harness).expect("the [[test]] file");
        let tests = dir.join("tests");
        for entry in std::fs::read_dir(&tests).expect("tests/") {
            let path = entry.expect("a tests/ entry").path();
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let is_module =
                path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
            if is_module && path != harness {
                assert!(
                    text.contains(&format!("\nmod {name};")),
                    "{} is not a module of {}: add `mod {name};`",
                    path.display(),
                    harness.display()
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 60,
        "only {checked} test files found: is the walk broken?"
    );
}
