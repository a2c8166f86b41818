//! `docs/fields.md` is generated from the field table; this test keeps it in sync.
//! Regenerate with `TLD4_BLESS=1 cargo test -p tld4-decoder --test docs`.

const HEADER: &str =
    "# TLD4 (SM100) fields\n\nGenerated from the field table in `decoder/src/fields.rs` \
(the one place where bit positions are written); bit numbers count the 128-bit word from bit 0 \
of the low 64-bit half. Do not edit by hand.\n\n";

#[test]
fn docs_fields_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/fields.md");
    let expected = format!("{HEADER}{}", tld4_decoder::fields_markdown());
    if std::env::var_os("TLD4_BLESS").is_some() {
        std::fs::write(path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "docs/fields.md is stale: run TLD4_BLESS=1 cargo test -p tld4-decoder --test docs"
    );
    // Every field appears with its bits.
    for f in tld4_decoder::FIELDS {
        assert!(actual.contains(&format!("| {} | `{}` |", f.bits(), f.name)));
    }
}
