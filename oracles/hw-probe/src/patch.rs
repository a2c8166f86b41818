//! Variants of the `raw` kernel's TLD4 word that PTX cannot express.
//!
//! Every variant reads its Ra vector from quad A and its Rb vector from quad B of the query
//! record (registers found by `layout.rs`) and writes Rd, Rd+1 into `C[0]`, `C[1]` and Rd2, Rd2+1
//! into `C[2]`, `C[3]` (C holds sentinels from the query, stored back after the TLD4). All fields
//! are set through the decoder's field table (`tld4_decoder::field`), never by bit number, and
//! every patched word is decoded again and compared field by field. On SM90 nvdisasm reads
//! the same bits for every field set here (see `sm90.rs`); the word's bits 46-53, which SM90
//! prints as an extra immediate, are left as ptxas wrote them.

use tld4_decoder::{
    decode_arch, Arch, ArchTld4, Component, Dimension, Eviction, F16Mode, OffsetMode, Tld4,
};

/// The probe's architecture: words are decoded, patched and encoded through its tables
/// (the sm_80 family's rows over the field table: docs/sources.md, TLD4 on every architecture).
pub const PROBE_ARCH: Arch = Arch::Sm90;

/// `word` decoded for [`PROBE_ARCH`].
pub fn decode_sm90(word: u128) -> Result<ArchTld4, String> {
    decode_arch(PROBE_ARCH, word).map_err(|e| e.to_string())
}

use crate::layout::RawLayout;

/// One variant of the raw TLD4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The name the run plan and the results use.
    pub name: String,
    /// The dimension field.
    pub dimension: Dimension,
    /// The gathered component.
    pub component: Component,
    /// AOFFI, PTP or none.
    pub offset_mode: OffsetMode,
    /// `.DC`.
    pub dc: bool,
    /// F16 output.
    pub f16: F16Mode,
    /// The write mask.
    pub mask: u8,
    /// The predicate destination (ptxas's P0 is what the stored P word reads; PT discards).
    pub pred_dst: u8,
    /// `.SCR` (ptxas 11.8 leaves it clear for sm_90; ptxas 13.5 sets it for sm_100: docs/sources.md).
    pub scr: bool,
    /// Rd = C + this (1 makes Rd odd and its pair overlap Rd2 = C + 2).
    pub rd_shift: u8,
    /// Rd2 = RZ instead of C + 2.
    pub rd2_rz: bool,
    /// The eviction priority (ptxas writes 1, nothing printed).
    pub eviction: Eviction,
    /// `.NODEP`.
    pub nodep: bool,
    /// Whether the variant may fault or hang (it is then run in a process of its own, last).
    pub risky: bool,
}

impl Variant {
    /// The plain 2D gather of component R: no offsets, no compare, 32-bit results, mask 0xf,
    /// predicate P0, no SCR, default eviction.
    pub fn base(name: &str) -> Self {
        Variant {
            name: name.to_string(),
            dimension: Dimension::Tex2D,
            component: Component::R,
            offset_mode: OffsetMode::None,
            dc: false,
            f16: F16Mode::None,
            mask: 0xf,
            pred_dst: 0,
            scr: false,
            rd_shift: 0,
            rd2_rz: false,
            eviction: Eviction::Normal,
            nodep: false,
            risky: false,
        }
    }
    fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }
}

/// The TLD4 word of a variant, from the raw kernel's original word.
pub fn patch(orig: u128, raw: &RawLayout, v: &Variant) -> Result<u128, String> {
    let orig_insn = decode_sm90(orig).map_err(|e| format!("original word: {e}"))?;
    let o = orig_insn.insn;
    let needs_rb = v.offset_mode != OffsetMode::None || v.dc;
    let rd = raw.c_reg + v.rd_shift;
    let rd2 = if v.rd2_rz { 255 } else { raw.c_reg + 2 };
    let rb = if needs_rb { raw.b_reg } else { 255 };
    let waits = raw
        .load_scoreboards
        .iter()
        .fold(o.req_bit_set as u32, |m, &s| m | 1 << s);
    // The variant's fields over the original's (the other fields, and SM90's immediate, as
    // ptxas wrote them), encoded for SM90.
    let want = wanted(&o, raw, v, rd, rd2, rb, waits);
    let w = ArchTld4 {
        insn: want,
        ..orig_insn
    }
    .try_encode()
    .map_err(|e| format!("{}: the variant does not encode for sm_90: {e}", v.name))?;
    let d = decode_sm90(w).map_err(|e| format!("{}: patched word does not decode: {e}", v.name))?;
    if d.insn != want || d.imm8 != orig_insn.imm8 {
        return Err(format!("{}: decodes as {d:?}, want {want:?}", v.name));
    }
    Ok(w)
}

/// The original instruction with the variant's fields.
fn wanted(o: &Tld4, raw: &RawLayout, v: &Variant, rd: u8, rd2: u8, rb: u8, waits: u32) -> Tld4 {
    Tld4 {
        ra: tld4_decoder::Reg(raw.a_reg),
        rb: tld4_decoder::Reg(rb),
        rd: tld4_decoder::Reg(rd),
        rd2: tld4_decoder::Reg(rd2),
        dimension: v.dimension,
        component: v.component,
        offset_mode: v.offset_mode,
        depth_compare: v.dc,
        f16_mode: v.f16,
        write_mask: tld4_decoder::WriteMask(v.mask),
        pred_dst: tld4_decoder::Pred(v.pred_dst),
        scr: v.scr,
        eviction: v.eviction,
        nodep: v.nodep,
        req_bit_set: waits as u8,
        ..*o
    }
}

/// Every variant the run plan uses, in a fixed order.
pub fn variants() -> Vec<Variant> {
    use Component::*;
    let b = Variant::base;
    let mut v = vec![
        // The same fields as ptxas's own word, but raw registers: checks the patching itself.
        b("same_2d_aoffi_dc").with(|x| {
            x.offset_mode = OffsetMode::Aoffi;
            x.dc = true;
        }),
        b("2d"),
        b("2d_g").with(|x| x.component = G),
        b("2d_b").with(|x| x.component = B),
        b("2d_a").with(|x| x.component = A),
        b("2d_aoffi").with(|x| x.offset_mode = OffsetMode::Aoffi),
        b("2d_dc").with(|x| x.dc = true),
        b("2d_ptp").with(|x| x.offset_mode = OffsetMode::Ptp),
        b("2d_ptp_dc").with(|x| {
            x.offset_mode = OffsetMode::Ptp;
            x.dc = true;
        }),
        b("a2d").with(|x| x.dimension = Dimension::Array2D),
        b("a2d_ptp").with(|x| {
            x.dimension = Dimension::Array2D;
            x.offset_mode = OffsetMode::Ptp;
        }),
        b("cube").with(|x| x.dimension = Dimension::Cube),
        b("acube").with(|x| x.dimension = Dimension::ArrayCube),
        b("pred_pt").with(|x| x.pred_dst = 7),
        b("pred_p1").with(|x| x.pred_dst = 1),
        b("scr").with(|x| x.scr = true),
        b("scr_cube").with(|x| {
            x.scr = true;
            x.dimension = Dimension::Cube;
        }),
        b("nodep").with(|x| x.nodep = true),
        b("rd2rz_m3").with(|x| {
            x.rd2_rz = true;
            x.mask = 0x3;
        }),
        b("rd2rz_mf").with(|x| x.rd2_rz = true),
    ];
    for e in [
        Eviction::EvictFirst,
        Eviction::EvictLast,
        Eviction::LastUse,
        Eviction::EvictUnchanged,
        Eviction::NoAllocate,
    ] {
        v.push(b(&format!("ev_{}", e.name().to_lowercase())).with(|x| x.eviction = e));
    }
    for c in [R, G, B, A] {
        for m in 1..16u8 {
            v.push(
                b(&format!("mask_{}_{m:x}", c.name().to_lowercase())).with(|x| {
                    x.component = c;
                    x.mask = m;
                }),
            );
        }
    }
    for (f, n) in [(F16Mode::Rn, "rn"), (F16Mode::Rz, "rz")] {
        for m in [0xf, 0x1, 0x2, 0x3, 0x5, 0x7, 0x8, 0x9, 0xa, 0xc, 0xe] {
            v.push(b(&format!("f16{n}_m{m:x}")).with(|x| {
                x.f16 = f;
                x.mask = m;
            }));
        }
    }
    // Risky: may fault (an illegal-instruction or misaligned-register exception) or never
    // finish; each runs in its own process with a time limit.
    let risky = |x: Variant| x.with(|y| y.risky = true);
    v.push(risky(b("risky_mask0").with(|x| x.mask = 0)));
    v.push(risky(b("risky_rd_odd_overlap").with(|x| x.rd_shift = 1)));
    v.push(risky(b("risky_cube_aoffi").with(|x| {
        x.dimension = Dimension::Cube;
        x.offset_mode = OffsetMode::Aoffi;
    })));
    v.push(risky(b("risky_cube_ptp").with(|x| {
        x.dimension = Dimension::Cube;
        x.offset_mode = OffsetMode::Ptp;
    })));
    v.push(risky(b("risky_f16rn_int").with(|x| x.f16 = F16Mode::Rn)));
    v.push(risky(b("risky_2d_on_array")));
    v
}

/// The variant of a name.
pub fn variant(name: &str) -> Option<Variant> {
    variants().into_iter().find(|v| v.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawLayout {
        RawLayout {
            a_reg: 8,
            b_reg: 4,
            c_reg: 12,
            load_scoreboards: vec![2, 3, 4],
            pred_store: "SEL R20, RZ, 0x1, P0".into(),
            pred_stored_if_set: 0,
            pred_stored_if_clear: 1,
        }
    }
    /// ptxas 11.8's raw TLD4 for sm_90: `TLD4.R.AOFFI.DC P0, R18, R16, R16, R18, UR4, 0x0, 2D`.
    const ORIG: u128 = 0x000f620008105f12_2000041210107f63;

    #[test]
    fn every_variant_patches_and_decodes_as_intended() {
        let names: std::collections::BTreeSet<String> =
            variants().iter().map(|v| v.name.clone()).collect();
        assert_eq!(names.len(), variants().len(), "variant names are unique");
        for v in variants() {
            let w = patch(ORIG, &raw(), &v).unwrap();
            let d = decode_sm90(w).unwrap().insn;
            assert_eq!(d.ra.0, 8);
            assert_eq!(d.rd.0, 12 + v.rd_shift);
            assert_eq!(d.write_mask.0, v.mask);
            assert_eq!(d.offset_mode, v.offset_mode, "{}", v.name);
            // Bits outside the patched fields are ptxas's: the SM90 immediate (46-53) too.
            assert_eq!((w >> 46) & 0xff, (ORIG >> 46) & 0xff);
            assert_eq!(
                decode_sm90(w).unwrap().insn.ur,
                decode_sm90(ORIG).unwrap().insn.ur
            );
            assert_eq!(d.req_bit_set & 0b11100, 0b11100, "waits on the three loads");
        }
    }

    #[test]
    fn ptp_reads_b_and_plain_reads_no_rb() {
        let w = patch(ORIG, &raw(), &variant("2d_ptp").unwrap()).unwrap();
        assert_eq!(
            decode_sm90(w).unwrap().text(),
            "TLD4.R.PTP P0, R14, R12, R8, R4, UR4, 0x0, 2D ;"
        );
        let w = patch(ORIG, &raw(), &variant("2d").unwrap()).unwrap();
        assert_eq!(
            decode_sm90(w).unwrap().text(),
            "TLD4.R P0, R14, R12, R8, UR4, 0x0, 2D ;"
        );
        let w = patch(ORIG, &raw(), &variant("f16rz_m5").unwrap()).unwrap();
        assert_eq!(
            decode_sm90(w).unwrap().text(),
            "TLD4.R.F16.RZ P0, R14, R12, R8, UR4, 0x0, 2D, 0x5 ;"
        );
    }
}
