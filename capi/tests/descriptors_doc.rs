//! `docs/descriptors.md` is generated from tld4-textures' descriptor tables (the ones the
//! decoder and encoder read their bits from); this test keeps it in sync. Regenerate with
//! `TLD4_BLESS=1 cargo test -p tld4-capi --test c_abi descriptors_doc`.

use std::fmt::Write;

use tld4_capi::tld4_tsc_address_mode;
use tld4_emu::gpu_memory::descriptor::class::{GpuClass, TSC_OVERRIDES};
use tld4_emu::gpu_memory::descriptor::tic::{
    FORMATS, SOURCES, TEXHEAD_V2_BL, TEXHEAD_V2_PITCH, TEXTURE_TYPES,
};
use tld4_emu::gpu_memory::descriptor::tic_v1::{self, SPLITS, V1_DATA_TYPES};
use tld4_emu::gpu_memory::descriptor::tsc::{HwAddressMode, TEXSAMP};
use tld4_emu::gpu_memory::descriptor::DescField;

const HEADER: &str = "# Texture headers (TIC) and samplers (TSC)\n\n\
Generated from the descriptor tables of `gpu-memory/src/descriptor/` (the one place where \
their bit positions are written; the decoder, the encoder, `tld4_tic_encode` and \
`tld4_tsc_encode` read them from there) by `capi/tests/descriptors_doc.rs`. Do not edit by \
hand. The layouts are NVIDIA's clcd97tex.h (BLACKWELL_A; docs/sources.md, Descriptors): \
each entry is 32 bytes, eight little-endian 32-bit words; bit `b` of the entry is bit \
`b % 32` of word `b / 32`. A handle's bits 19:0 index the texture header pool, bits 31:20 \
the sampler pool (docs/sources.md, NAK conventions). Other GPU classes: see \
[Per GPU class](#per-gpu-class) at the end.\n";

fn table(out: &mut String, title: &str, rows: &[DescField]) {
    writeln!(out, "\n## {title}\n").unwrap();
    out.push_str("| bits | word [bits] | field | meaning |\n|---|---|---|---|\n");
    for f in rows {
        let (w, lo, hi) = (f.lo / 32, f.lo % 32, f.hi - (f.lo / 32) * 32);
        writeln!(
            out,
            "| {} | {w} [{hi}:{lo}] | `{}` | {} |",
            f.bits(),
            f.name,
            f.meaning
        )
        .unwrap();
    }
}

fn markdown() -> String {
    let mut out = HEADER.to_string();
    table(
        &mut out,
        "TEXHEAD_V2_BL (block-linear texture header)",
        TEXHEAD_V2_BL,
    );
    table(
        &mut out,
        "TEXHEAD_V2_PITCH (pitch-linear texture header)",
        TEXHEAD_V2_PITCH,
    );
    table(&mut out, "TEXSAMP (sampler)", TEXSAMP);

    out.push_str("\n## TEXTURE_TYPE values\n\n| value | name | gathered as |\n|---:|---|---|\n");
    for (v, name, kind) in TEXTURE_TYPES {
        let k = kind.map_or("not modeled".to_string(), |k| format!("{k:?}"));
        writeln!(out, "| {v:#x} | `{name}` | {k} |").unwrap();
    }
    out.push_str(
        "\n## Formats (COMPONENTS, DATA_TYPE, S_R_G_B_CONVERSION)\n\n\
         | format | COMPONENTS | DATA_TYPE | sRGB |\n|---|---:|---:|---|\n",
    );
    for (f, comps, dt, srgb) in FORMATS {
        writeln!(out, "| `{}` | {comps:#04x} | {dt} | {srgb} |", f.name()).unwrap();
    }
    out.push_str("\n## X/Y/Z/W_SOURCE values\n\n| value | name |\n|---:|---|\n");
    for (v, name) in SOURCES {
        writeln!(out, "| {v} | `{name}` |").unwrap();
    }
    out.push_str(
        "\n## Address modes: hardware numbers are not Vulkan's\n\n\
         The sampler entry's ADDRESS_U/V/P hold clcd97tex.h's numbers (C: \
         `tld4_tsc_address_mode`, `tld4_tsc_desc`). `tld4_sampler_desc` and tld4-textures' \
         `AddressMode` take VkSamplerAddressMode numbers instead: 4 is MIRROR_CLAMP_TO_EDGE \
         there and CLAMP_OGL here. `tld4_sampler_to_tsc` (Rust: \
         `SamplerState::from_sampler`) converts.\n\n\
         | TSC value | clcd97tex.h | C name | Vulkan mode (number) |\n|---:|---|---|---|\n",
    );
    for m in HwAddressMode::ALL {
        let c = c_name(m);
        let vk = m
            .modeled()
            .map_or("not modeled for gathers".to_string(), |a| {
                format!("{a:?} ({})", a as u32)
            });
        writeln!(out, "| {} | {m:?} | `{c}` | {vk} |", m as u32).unwrap();
    }
    per_class(&mut out);
    out
}

/// The per-class section: which layout each class reads, the V1 tables and how V1 differs.
fn per_class(out: &mut String) {
    out.push_str(
        "\n## Per GPU class\n\n\
         Each class's texture header file in NVIDIA/open-gpu-doc `classes/3d/` \
         (docs/sources.md, Descriptors per GPU class). Classes that print the same layout \
         share its table; a difference is a row below.\n\n\
         | class | number | file | texture header layouts (default first) | sampler rows replaced |\n\
         |---|---|---|---|---|\n",
    );
    for c in GpuClass::ALL {
        let fmts: Vec<String> = c
            .header_formats()
            .iter()
            .map(|f| format!("{f:?}"))
            .collect();
        let tsc: Vec<String> = TSC_OVERRIDES
            .iter()
            .filter(|o| o.classes.contains(&c))
            .map(|o| {
                let rows: Vec<String> = o
                    .rows
                    .iter()
                    .map(|r| format!("`{}` {}", r.name, r.bits()))
                    .collect();
                format!("`{}` by {}", o.replaces, rows.join(", "))
            })
            .collect();
        let tsc = if tsc.is_empty() {
            "none".to_string()
        } else {
            tsc.join("; ")
        };
        writeln!(
            out,
            "| {} | {:#06x} | {} | {} | {tsc} |",
            c.name(),
            c.id(),
            c.tex_header(),
            fmts.join(", ")
        )
        .unwrap();
    }
    table(
        out,
        "TEXHEAD_BL (V1 block-linear texture header: TURING_A to ADA_A, HOPPER_A's V1)",
        tic_v1::texhead_bl(),
    );
    table(
        out,
        "TEXHEAD_PITCH (V1 pitch-linear texture header)",
        tic_v1::texhead_pitch(),
    );
    out.push_str(
        "\n## V1 fields held otherwise than in V2\n\n\
         A V1 header is read by moving each field to its V2 place (same name, same value) \
         except these.\n\n| V2 field | V1 parts, low bits first |\n|---|---|\n",
    );
    for sp in SPLITS {
        let parts: Vec<String> = sp.v1.iter().map(|p| format!("`{p}`")).collect();
        writeln!(out, "| `{}` | {} |", sp.v2, parts.join(" + ")).unwrap();
    }
    out.push_str("\n| V1 `R/G/B/A_DATA_TYPE` | name | V2 `DATA_TYPE` |\n|---:|---|---|\n");
    for (v, name, v2) in V1_DATA_TYPES {
        let v2 = v2.map_or("none (not modeled)".to_string(), |x| x.to_string());
        writeln!(out, "| {v} | `{name}` | {v2} |").unwrap();
    }
    writeln!(
        out,
        "\nV1 `BORDER_SIZE` {} (`BORDER_SAMPLER_COLOR`) is V2 `BORDER_SOURCE` 1; 0-3 are \
         texture borders (not modeled). Dropped where the V2 layout has no such field: {}.",
        tic_v1::BORDER_SAMPLER_COLOR,
        tic_v1::DROPPED
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
    .unwrap();
}

/// The C enumerator of a hardware mode (the same number).
fn c_name(m: HwAddressMode) -> &'static str {
    use tld4_tsc_address_mode::*;
    let all = [
        (TLD4_TSC_WRAP, "TLD4_TSC_WRAP"),
        (TLD4_TSC_MIRROR, "TLD4_TSC_MIRROR"),
        (TLD4_TSC_CLAMP_TO_EDGE, "TLD4_TSC_CLAMP_TO_EDGE"),
        (TLD4_TSC_BORDER, "TLD4_TSC_BORDER"),
        (TLD4_TSC_CLAMP_OGL, "TLD4_TSC_CLAMP_OGL"),
        (
            TLD4_TSC_MIRROR_ONCE_CLAMP_TO_EDGE,
            "TLD4_TSC_MIRROR_ONCE_CLAMP_TO_EDGE",
        ),
        (TLD4_TSC_MIRROR_ONCE_BORDER, "TLD4_TSC_MIRROR_ONCE_BORDER"),
        (
            TLD4_TSC_MIRROR_ONCE_CLAMP_OGL,
            "TLD4_TSC_MIRROR_ONCE_CLAMP_OGL",
        ),
    ];
    all.iter()
        .find(|(c, _)| *c as u32 == m as u32)
        .map_or("?", |(_, n)| n)
}

#[test]
fn docs_descriptors_md_is_generated_from_the_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/descriptors.md");
    let expected = markdown();
    if std::env::var_os("TLD4_BLESS").is_some() {
        std::fs::write(path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "docs/descriptors.md is stale: run TLD4_BLESS=1 cargo test -p tld4-capi --test c_abi descriptors_doc"
    );
    for t in [
        TEXHEAD_V2_BL,
        TEXHEAD_V2_PITCH,
        TEXSAMP,
        tic_v1::texhead_bl(),
        tic_v1::texhead_pitch(),
    ] {
        for f in t {
            assert!(actual.contains(&format!("| {} |", f.bits())));
            assert!(actual.contains(&format!("`{}`", f.name)));
        }
    }
    // Every hardware mode has its C enumerator, with the same number.
    for m in HwAddressMode::ALL {
        assert_ne!(c_name(m), "?", "{m:?}");
    }
}
