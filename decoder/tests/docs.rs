//! `docs/fields.md` is generated from the field table; this test keeps it in sync.
//! Regenerate with `TLD4_BLESS=1 cargo test -p tld4-decoder --test decoding docs`.

const HEADER: &str =
    "# TLD4 (SM100) fields\n\nGenerated from the field table in `decoder/src/fields.rs` \
(the one place where bit positions are written); bit numbers count the 128-bit word from bit 0 \
of the low 64-bit half. Do not edit by hand.\n\n";

const FAMILIES: &str =
    "\n# Per architecture family\n\nThe table above is SM100's. Each family below \
(architectures that nvdisasm 13.5 prints alike, docs/sources.md, TLD4 on every architecture) \
lists its TLD4 opcodes and the rows of `decoder/src/fields/arch_rows.rs` applied over the table \
above; a field not named there is as above.\n";

#[test]
fn docs_fields_md_is_generated_from_the_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/fields.md");
    let mut expected = format!("{HEADER}{}", tld4_decoder::fields_markdown());
    expected.push_str(FAMILIES);
    for family in tld4_decoder::Family::ALL {
        expected.push('\n');
        expected.push_str(&tld4_decoder::family_markdown(family));
    }
    if std::env::var_os("TLD4_BLESS").is_some() {
        std::fs::write(path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "docs/fields.md is stale: run TLD4_BLESS=1 cargo test -p tld4-decoder --test decoding docs"
    );
    // Every family's section, forms and rows appear.
    for family in tld4_decoder::Family::ALL {
        assert!(actual.contains(&format!("## {}\n", family.name())));
    }
    for f in tld4_decoder::FORMS {
        assert!(actual.contains(&format!("| {:#05x} |", f.opcode)));
    }
    for r in tld4_decoder::FAMILY_ROWS {
        assert!(actual.contains(&format!("| {} | `{}` |", r.spec.bits(), r.spec.name)));
    }
    // Every field appears with its bits.
    for f in tld4_decoder::FIELDS {
        assert!(actual.contains(&format!("| {} | `{}` |", f.bits(), f.name)));
    }
}
