//! The committed kernels agree with their generator, their layout and their variants. Runs
//! everywhere: nvdisasm's listing of the cubin is committed (`kernels/tld4_probe.sm90.sass`).

use tld4_hw_probe::patch::decode_sm90;
use tld4_hw_probe::{elf, kernels, layout, nvdisasm, patch, ptx, sm90};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/kernels");

#[test]
fn committed_ptx_is_the_generators() {
    let committed = std::fs::read_to_string(format!("{DIR}/tld4_probe.ptx")).unwrap();
    assert_eq!(
        committed,
        ptx::ptx_source(),
        "rerun oracles/hw-probe/build-kernels.sh"
    );
}

#[test]
fn committed_portable_ptx_is_the_generators() {
    let committed = std::fs::read_to_string(format!("{DIR}/tld4_probe.portable.ptx")).unwrap();
    assert_eq!(
        committed,
        ptx::ptx_source_for(&ptx::PORTABLE),
        "rerun `tld4-hw-probe gen-ptx --portable > oracles/hw-probe/kernels/tld4_probe.portable.ptx`"
    );
    // The same kernels as the SM90 file: only the header differs.
    let body = |s: &str| s.split_once(".address_size").map(|(_, b)| b.to_string());
    assert_eq!(body(&committed), body(&ptx::ptx_source()));
}

#[test]
fn layout_belongs_to_the_cubin_and_to_its_listing() {
    let l = kernels::layout().expect("layout.json matches the embedded cubin");
    // Re-derive the layout from the committed nvdisasm listing: the same registers and words.
    let sass = std::fs::read_to_string(format!("{DIR}/tld4_probe.sm90.sass")).unwrap();
    let listing = nvdisasm::parse_listing(&sass);
    let again = layout::analyze(kernels::CUBIN, &listing, &l.ptxas).unwrap();
    assert_eq!(again, l);
    // One kernel per native PTX kernel, plus raw; each TLD4 decodes.
    assert_eq!(l.kernels.len(), ptx::nat_kernels().len() + 1);
    for k in &l.kernels {
        decode_sm90(layout::parse_word(&k.tld4_word).unwrap()).unwrap();
    }
    // The raw kernel's quads, as nvdisasm showed them for ptxas 11.8: A = R8, B = R4, C = R12.
    assert_eq!((l.raw.a_reg, l.raw.b_reg, l.raw.c_reg), (8, 4, 12));
    assert_eq!(
        l.raw.pred_stored_if_set, 0,
        "ptxas stores PTX's resident flag, the hardware predicate's negation"
    );
}

#[test]
fn dtype_does_not_change_the_word() {
    // ptxas writes the same TLD4 for .f32, .s32 and .u32 results: the type comes from the texture.
    let l = kernels::layout().unwrap();
    let w = |n: &str| kernels::kernel(&l, n).unwrap().tld4_word.clone();
    let (f, s, u) = (
        decode_sm90(layout::parse_word(&w("nat_2d_r")).unwrap())
            .unwrap()
            .insn,
        decode_sm90(layout::parse_word(&w("nat_2d_r_s32")).unwrap())
            .unwrap()
            .insn,
        decode_sm90(layout::parse_word(&w("nat_2d_r_u32")).unwrap())
            .unwrap()
            .insn,
    );
    assert_eq!(
        (f.component, f.offset_mode, f.f16_mode, f.write_mask),
        (s.component, s.offset_mode, s.f16_mode, s.write_mask)
    );
    assert_eq!(s, u);
}

#[test]
fn variants_tsv_is_what_patch_makes() {
    let l = kernels::layout().unwrap();
    let rows = kernels::variant_rows(kernels::VARIANTS_TSV);
    let vs = patch::variants();
    assert_eq!(rows.len(), vs.len(), "rerun build-kernels.sh");
    for (v, (name, word, text)) in vs.iter().zip(&rows) {
        assert_eq!(&v.name, name);
        let (img, w) = kernels::patched_cubin(&l, v).unwrap();
        assert_eq!(layout::word_hex(w), *word, "{name}");
        // The patched cubin differs from the original in exactly the 16 bytes of the TLD4.
        let diff: Vec<usize> = (0..img.len())
            .filter(|&i| img[i] != kernels::CUBIN[i])
            .collect();
        let sec = elf::kernel_text(kernels::CUBIN, "raw").unwrap();
        let at = sec.offset + kernels::kernel(&l, "raw").unwrap().tld4_index * 16;
        assert!(diff.iter().all(|&i| (at..at + 16).contains(&i)), "{name}");
        // nvdisasm SM90's text (recorded) is the SM90 tables' text, immediate included.
        let dec = decode_sm90(w).unwrap();
        assert_eq!(
            nvdisasm::collapse(text),
            nvdisasm::collapse(tld4_decoder::without_closing(&dec.text())),
            "{name}"
        );
        let (_, imm) = sm90::strip_sm90_immediate(text);
        assert_eq!(imm, Some(0));
        assert_eq!(dec.imm8, 0, "{name}");
    }
}

#[test]
fn ptp_variant_reads_two_offset_registers_from_b() {
    let l = kernels::layout().unwrap();
    let v = patch::variant("2d_ptp_dc").unwrap();
    let (_, w) = kernels::patched_cubin(&l, &v).unwrap();
    let d = decode_sm90(w).unwrap().insn;
    let rb = d.rb_layout();
    assert_eq!((rb.offsets, rb.depth_ref, rb.len()), (2, true, 3));
    // Rb = B's quad, which holds the query's B[0..3]: ptp0, ptp1, dref.
    assert_eq!(d.rb.0, l.raw.b_reg);
    assert_eq!(d.ra.0, l.raw.a_reg);
    assert_eq!((d.rd.0, d.rd2.0), (l.raw.c_reg, l.raw.c_reg + 2));
}
