//! `tld4 demo`: runs the six seed variants and every modifier on a built-in texture set,
//! checking every lane against the plain Vulkan-formula `reference` module of textures/.

use std::io::Write;
use std::process::ExitCode;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use tld4_decoder::{parse, Dimension, F16Mode, HandleForm, OffsetMode, Tld4};
use tld4_emu::pack::f16_rz;
use tld4_emu::{aoffi_offsets, gather_op, ptp_offsets, ExecConfig, Tld4Exec, WarpState, WARP_SIZE};
use tld4_reference as reference;
use tld4_textures::{
    AddressMode, BorderColor, CompareOp, Format, GatherQuery, Handle, Residency, Sampler, Texture,
    TextureDesc, TextureKind, TexturePool,
};

use crate::CmdResult;

/// The built-in texture set: (header index, kind) of each texture, and the pool.
pub struct Fixture {
    pub pool: TexturePool,
    /// (texture index, sampler index) by purpose.
    pub color_2d: u32,
    pub color_array: u32,
    pub color_cube: u32,
    pub color_cube_array: u32,
    pub depth_2d: u32,
    pub depth_cube_array: u32,
    pub sparse_2d: u32,
    pub clamp: u32,
    pub repeat: u32,
    pub mirror_less: u32,
    pub border_gequal: u32,
}

fn random_texture(
    rng: &mut ChaCha8Rng,
    kind: TextureKind,
    format: Format,
    w: u32,
    h: u32,
    layers: u32,
) -> Texture {
    let desc = TextureDesc {
        kind,
        format,
        width: w,
        height: h,
        layers,
    };
    Texture::from_fn(desc, |_, _, _| {
        let mut f = [0u32; 4];
        for (i, v) in f.iter_mut().enumerate().take(format.fields()) {
            let bits = format.field_bits(i);
            *v = match format {
                // Float formats: random values in [-2, 2) as f32 (or f16) bits.
                Format::Rgba16Float => {
                    half::f16::from_f32(rng.gen_range(-2.0f32..2.0)).to_bits() as u32
                }
                Format::R32Float | Format::D32Float => rng.gen_range(0.0f32..1.0).to_bits(),
                _ => rng.gen_range(0..=(((1u64 << bits) - 1) as u32)),
            };
        }
        f
    })
    .expect("built-in texture")
}

/// Appends textures and samplers to a pool of a few built-in entries, far below the last
/// index a handle names (so an append cannot fail).
struct Appending(TexturePool);

impl Appending {
    fn add_texture(&mut self, t: Texture) -> u32 {
        self.0.add_texture(t).expect("a few textures fit")
    }
    fn add_sampler(&mut self, s: Sampler) -> u32 {
        self.0.add_sampler(s).expect("a few samplers fit")
    }
}

/// Builds the built-in textures (seeded, so every run is the same).
pub fn fixture() -> Fixture {
    let mut rng = ChaCha8Rng::seed_from_u64(0x7d4);
    let mut pool = Appending(TexturePool::new());
    let color_2d = pool.add_texture(random_texture(
        &mut rng,
        TextureKind::Tex2D,
        Format::Rgba8Unorm,
        8,
        8,
        1,
    ));
    let color_array = pool.add_texture(random_texture(
        &mut rng,
        TextureKind::Tex2DArray,
        Format::Rgba16Float,
        8,
        4,
        3,
    ));
    let color_cube = pool.add_texture(random_texture(
        &mut rng,
        TextureKind::Cube,
        Format::R32Float,
        4,
        4,
        1,
    ));
    let color_cube_array = pool.add_texture(random_texture(
        &mut rng,
        TextureKind::CubeArray,
        Format::Rgba8Unorm,
        4,
        4,
        2,
    ));
    let depth_2d = pool.add_texture(random_texture(
        &mut rng,
        TextureKind::Tex2D,
        Format::D32Float,
        8,
        8,
        1,
    ));
    let depth_cube_array = pool.add_texture(random_texture(
        &mut rng,
        TextureKind::CubeArray,
        Format::D32Float,
        4,
        4,
        2,
    ));
    let sparse = random_texture(&mut rng, TextureKind::Tex2D, Format::Rgba8Unorm, 8, 8, 1);
    let mut map = Residency::all_resident(sparse.desc(), 4, 4).expect("tiles");
    map.set(0, 1, 1, false).expect("tile");
    let sparse_2d = pool.add_texture(sparse.with_residency(map).expect("residency"));
    let clamp = pool.add_sampler(Sampler::default());
    let repeat = pool.add_sampler(Sampler::with_address(AddressMode::Repeat));
    let mirror_less = pool.add_sampler(Sampler {
        compare: Some(CompareOp::Less),
        ..Sampler::with_address(AddressMode::MirroredRepeat)
    });
    let border_gequal = pool.add_sampler(Sampler {
        compare: Some(CompareOp::GreaterOrEqual),
        border: BorderColor::FLOAT_OPAQUE_WHITE,
        ..Sampler::with_address(AddressMode::ClampToBorder)
    });
    Fixture {
        pool: pool.0,
        color_2d,
        color_array,
        color_cube,
        color_cube_array,
        depth_2d,
        depth_cube_array,
        sparse_2d,
        clamp,
        repeat,
        mirror_less,
        border_gequal,
    }
}

/// One demo row: an instruction and the texture and sampler it runs on.
pub struct Row {
    pub variant: &'static str,
    pub text: &'static str,
    pub texture: u32,
    pub sampler: u32,
}

/// Every row of the demo.
pub fn rows(f: &Fixture) -> Vec<Row> {
    let r = |variant, text, texture, sampler| Row {
        variant,
        text,
        texture,
        sampler,
    };
    vec![
        // The six seed variants (seeds/TLD4_SM100_encodings.txt).
        r(
            "TLD4_P_R_R_R_R_SNOWFLAKE_I (cube)",
            "TLD4.R.B R10, R8, R20, R30, CUBE ;",
            f.color_cube,
            f.clamp,
        ),
        r(
            "TLD4_P_R_R_R_R_UR_SNOWFLAKE_I (cube array)",
            "TLD4.G R10, R8, R20, UR4, ARRAY_CUBE ;",
            f.color_cube_array,
            f.repeat,
        ),
        r(
            "TLD4_P_R_R_R_R_D_I",
            "TLD4.R.B R10, R8, R20, R30, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "TLD4_P_R_R_R_R_UR_D_I",
            "TLD4.R R10, R8, R20, UR4, 2D ;",
            f.color_2d,
            f.clamp,
        ),
        r(
            "TLD4_P_R_R_R_R_ARRAY_D_I",
            "TLD4.B.B R10, R8, R20, R30, ARRAY_2D ;",
            f.color_array,
            f.repeat,
        ),
        r(
            "TLD4_P_R_R_R_R_UR_ARRAY_D_I",
            "TLD4.A R10, R8, R20, UR4, ARRAY_2D ;",
            f.color_array,
            f.clamp,
        ),
        // Every component.
        r(
            "component R",
            "TLD4.R R10, R8, R20, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "component G",
            "TLD4.G R10, R8, R20, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "component B",
            "TLD4.B R10, R8, R20, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "component A",
            "TLD4.A R10, R8, R20, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        // Every dimension.
        r("2D", "TLD4.G R10, R8, R20, UR4, 2D ;", f.color_2d, f.clamp),
        r(
            "ARRAY_2D",
            "TLD4.R R10, R8, R20, UR4, ARRAY_2D ;",
            f.color_array,
            f.repeat,
        ),
        r(
            "CUBE",
            "TLD4.R R10, R8, R20, UR4, CUBE ;",
            f.color_cube,
            f.clamp,
        ),
        r(
            "ARRAY_CUBE",
            "TLD4.B R10, R8, R20, UR4, ARRAY_CUBE ;",
            f.color_cube_array,
            f.clamp,
        ),
        // Modifiers.
        r(
            "AOFFI",
            "TLD4.G.AOFFI R10, R8, R20, R24, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "AOFFI, register handle",
            "TLD4.A.B.AOFFI R10, R8, R20, R30, ARRAY_2D ;",
            f.color_array,
            f.clamp,
        ),
        r(
            "PTP",
            "TLD4.R.PTP R10, R8, R20, R24, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "PTP, array",
            "TLD4.G.PTP R10, R8, R20, R24, UR4, ARRAY_2D ;",
            f.color_array,
            f.repeat,
        ),
        r(
            "DC",
            "TLD4.R.DC R10, R8, R20, R24, UR4, 2D ;",
            f.depth_2d,
            f.mirror_less,
        ),
        r(
            "DC + AOFFI",
            "TLD4.A.AOFFI.DC R10, R8, R20, R24, UR4, 2D ;",
            f.depth_2d,
            f.border_gequal,
        ),
        r(
            "DC + PTP",
            "TLD4.R.PTP.DC R10, R8, R20, R24, UR4, 2D ;",
            f.depth_2d,
            f.mirror_less,
        ),
        r(
            "DC, cube array",
            "TLD4.R.DC R10, R8, R20, R24, UR4, ARRAY_CUBE ;",
            f.depth_cube_array,
            f.mirror_less,
        ),
        r(
            "F16.RN",
            "TLD4.R.F16.RN R10, R8, R20, UR4, 2D ;",
            f.color_2d,
            f.repeat,
        ),
        r(
            "F16.RZ",
            "TLD4.G.F16.RZ R10, R8, R20, UR4, ARRAY_2D ;",
            f.color_array,
            f.repeat,
        ),
        r(
            "F16.RZ, mask 0x7",
            "TLD4.B.F16.RZ R10, R8, R20, UR4, ARRAY_2D, 0x7 ;",
            f.color_array,
            f.clamp,
        ),
        r(
            "mask 0xb",
            "TLD4.R R10, R8, R20, UR4, 2D, 0xb ;",
            f.color_2d,
            f.clamp,
        ),
        r(
            "guard @!P1, sparse, P0",
            "@!P1 TLD4.R P0, R10, R8, R20, UR4, 2D ;",
            f.sparse_2d,
            f.repeat,
        ),
    ]
}

/// A coordinate whose texel position (c * size - 0.5) is at least 0.1 texel from a boundary,
/// so that the precision model and the exact reference agree; `k` in `lo..hi` texels.
fn interior(rng: &mut ChaCha8Rng, size: u32, lo: i32, hi: i32) -> f32 {
    let k = rng.gen_range(lo..hi) as f32;
    (k + 0.5 + rng.gen_range(0.1f32..0.9)) / size as f32
}

/// Fills lane registers for `insn` on `texture` (Ra at R20, Rb at R24 or R30) and returns
/// each lane's query as the instruction will see it.
fn setup_lanes(
    rng: &mut ChaCha8Rng,
    insn: &Tld4,
    texture: &Texture,
    handle: u32,
    warp: &mut WarpState,
) {
    let (w, h) = (texture.width(), texture.height());
    let ra = insn.ra.0;
    let rb = insn.rb.0;
    for lane in 0..WARP_SIZE {
        let mut r = ra;
        if insn.dimension.is_array() {
            // Layers past the end too: the hardware clamps them.
            warp.set_reg(lane, r, rng.gen_range(0..texture.layers() + 2));
            r += 1;
        }
        if insn.dimension.is_cube() {
            // A face, and face coordinates inside it (the footprint stays on the face).
            let sc = interior(rng, w, 0, w as i32 - 1) * 2.0 - 1.0;
            let tc = interior(rng, h, 0, h as i32 - 1) * 2.0 - 1.0;
            let m = rng.gen_range(0.5f32..2.0);
            // Vulkan's face table (16.5.4): (major axis, sc, tc) per face.
            let dir = match rng.gen_range(0..6) {
                0 => [m, -tc * m, -sc * m],
                1 => [-m, -tc * m, sc * m],
                2 => [sc * m, m, tc * m],
                3 => [sc * m, -m, -tc * m],
                4 => [sc * m, -tc * m, m],
                _ => [-sc * m, -tc * m, -m],
            };
            for (k, c) in dir.iter().enumerate() {
                warp.set_reg_f32(lane, r + k as u8, *c);
            }
        } else {
            warp.set_reg_f32(lane, r, interior(rng, w, -(w as i32), 2 * w as i32));
            warp.set_reg_f32(lane, r + 1, interior(rng, h, -(h as i32), 2 * h as i32));
        }
        let mut b = rb;
        if insn.form == HandleForm::Register {
            warp.set_reg(lane, b, handle);
            b += 1;
        }
        match insn.offset_mode {
            OffsetMode::Aoffi => {
                warp.set_reg(lane, b, rng.gen::<u32>());
                b += 1;
            }
            OffsetMode::Ptp => {
                warp.set_reg(lane, b, rng.gen::<u32>());
                warp.set_reg(lane, b + 1, rng.gen::<u32>());
                b += 2;
            }
            _ => {}
        }
        if insn.depth_compare {
            warp.set_reg_f32(lane, b, rng.gen_range(-0.1f32..1.1));
        }
        warp.set_pred(lane, 1, rng.gen_bool(0.25));
        for d in 8..12 {
            warp.set_reg(lane, d, 0xdead_0000 | d as u32);
        }
    }
}

/// The reference's expectation for one lane: the registers Rd.., Rd2.. and the predicate.
fn expected(
    insn: &Tld4,
    texture: &Texture,
    sampler: &Sampler,
    warp: &WarpState,
    lane: usize,
) -> Result<(Vec<(u8, u32)>, bool), String> {
    let regs = warp.lane_regs(lane);
    let mut at = insn.ra.0 as usize;
    let mut q = GatherQuery::default();
    if insn.dimension.is_array() {
        q.layer = regs[at] & 0xffff;
        at += 1;
    }
    for k in 0..if insn.dimension.is_cube() { 3 } else { 2 } {
        q.coords[k] = f32::from_bits(regs[at + k]);
    }
    let mut b = insn.rb.0 as usize + (insn.form == HandleForm::Register) as usize;
    let offsets = match insn.offset_mode {
        OffsetMode::Aoffi => {
            q.offsets[0] = aoffi_offsets(regs[b]);
            b += 1;
            tld4_textures::OffsetMode::Aoffi
        }
        OffsetMode::Ptp => {
            q.offsets = ptp_offsets(regs[b], regs[b + 1]);
            b += 2;
            tld4_textures::OffsetMode::Ptp
        }
        _ => tld4_textures::OffsetMode::None,
    };
    if insn.depth_compare {
        q.dref = f32::from_bits(regs[b]);
    }
    // The operands above are read independently of the executor (a cross-check); the op is
    // the executor's own.
    let op = gather_op(insn).ok_or("invalid dimension")?;
    debug_assert_eq!(op.offsets, offsets);
    let r = reference::gather(texture, sampler, &op, &q).map_err(|e| e.to_string())?;
    let enabled: Vec<u32> = (0..4)
        .filter(|&c| insn.write_mask.has(c))
        .map(|c| r.values[c as usize])
        .collect();
    let mut out = Vec::new();
    match insn.f16_mode {
        F16Mode::None => {
            for (k, v) in enabled.iter().enumerate() {
                let (base, off) = if k < 2 {
                    (insn.rd.0, k)
                } else {
                    (insn.rd2.0, k - 2)
                };
                out.push((base + off as u8, *v));
            }
        }
        mode => {
            let h = |k: usize| -> u32 {
                let Some(&v) = enabled.get(k) else { return 0 };
                let x = f32::from_bits(v);
                if mode == F16Mode::Rn {
                    half::f16::from_f32(x).to_bits() as u32
                } else {
                    f16_rz(x) as u32
                }
            };
            out.push((insn.rd.0, h(0) | h(1) << 16));
            if enabled.len() > 2 {
                out.push((insn.rd2.0, h(2) | h(3) << 16));
            }
        }
    }
    Ok((out, !r.resident))
}

/// One row's outcome: lanes executed and lanes that matched the reference.
pub struct RowResult {
    pub form: &'static str,
    pub lanes: u32,
    pub passed: u32,
    pub error: Option<String>,
}

/// Runs one row on a fresh warp.
pub fn run_row(f: &Fixture, row: &Row, seed: u64) -> RowResult {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let insn = match parse(row.text) {
        Ok(i) => i,
        Err(e) => {
            return RowResult {
                form: "?",
                lanes: 0,
                passed: 0,
                error: Some(format!("{}: {e}", row.text)),
            }
        }
    };
    let form = if insn.form == HandleForm::Register {
        "0xd64"
    } else {
        "0xf63"
    };
    let fail = |e: String| RowResult {
        form,
        lanes: 0,
        passed: 0,
        error: Some(e),
    };
    let (texture, sampler) = match f
        .pool
        .resolve(Handle::new(row.texture, row.sampler).expect("fixture handle"))
    {
        Ok((t, s)) => (t, *s),
        Err(e) => return fail(e.to_string()),
    };
    let handle = Handle::new(row.texture, row.sampler)
        .expect("fixture handle")
        .0;
    let mut warp = WarpState::new();
    warp.set_ureg(4, handle);
    setup_lanes(&mut rng, &insn, texture, handle, &mut warp);
    let before = warp.clone();
    let exec = Tld4Exec::new(&insn, ExecConfig::default());
    let report = match exec.execute(&mut warp, &f.pool) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    let mut passed = 0;
    let mut lanes = 0;
    let mut first_error = None;
    for lane in 0..WARP_SIZE {
        let guard = before.pred(lane, insn.guard_pred.0) != insn.guard_negated;
        if !guard {
            // Not executed: nothing may change.
            if (0..=254u8).all(|r| warp.reg(lane, r) == before.reg(lane, r))
                && (0..7).all(|p| warp.pred(lane, p) == before.pred(lane, p))
            {
                continue;
            }
            first_error.get_or_insert(format!(
                "lane {lane} did not execute but its registers changed"
            ));
            lanes += 1;
            continue;
        }
        lanes += 1;
        if report.executed >> lane & 1 == 0 {
            first_error.get_or_insert(format!("lane {lane} should have executed"));
            continue;
        }
        match expected(&insn, texture, &sampler, &before, lane) {
            Err(e) => {
                first_error.get_or_insert(format!("lane {lane}: reference: {e}"));
            }
            Ok((regs, nonresident)) => {
                let regs_ok = regs.iter().all(|&(r, v)| warp.reg(lane, r) == v);
                let pred_ok =
                    insn.pred_dst.is_pt() || warp.pred(lane, insn.pred_dst.0) == nonresident;
                if regs_ok && pred_ok {
                    passed += 1;
                } else {
                    let got: Vec<String> = regs
                        .iter()
                        .map(|&(r, v)| {
                            format!("R{r} {:#010x} (expected {v:#010x})", warp.reg(lane, r))
                        })
                        .collect();
                    first_error.get_or_insert(format!("lane {lane}: {}", got.join(", ")));
                }
            }
        }
    }
    RowResult {
        form,
        lanes,
        passed,
        error: first_error,
    }
}

/// Which dimensions and modifiers the rows cover (a self-check of the demo itself).
pub fn coverage(rows: &[Row]) -> Vec<&'static str> {
    let insns: Vec<Tld4> = rows.iter().filter_map(|r| parse(r.text).ok()).collect();
    let mut missing = Vec::new();
    for d in [
        Dimension::Tex2D,
        Dimension::Array2D,
        Dimension::Cube,
        Dimension::ArrayCube,
    ] {
        if !insns.iter().any(|i| i.dimension == d) {
            missing.push(d.name());
        }
    }
    for (name, ok) in [
        (
            "AOFFI",
            insns.iter().any(|i| i.offset_mode == OffsetMode::Aoffi),
        ),
        (
            "PTP",
            insns.iter().any(|i| i.offset_mode == OffsetMode::Ptp),
        ),
        ("DC", insns.iter().any(|i| i.depth_compare)),
        ("F16.RN", insns.iter().any(|i| i.f16_mode == F16Mode::Rn)),
        ("F16.RZ", insns.iter().any(|i| i.f16_mode == F16Mode::Rz)),
        (
            "register handle",
            insns.iter().any(|i| i.form == HandleForm::Register),
        ),
    ] {
        if !ok {
            missing.push(name);
        }
    }
    for c in tld4_decoder::Component::ALL {
        if !insns.iter().any(|i| i.component == c) {
            missing.push(c.name());
        }
    }
    missing
}

pub fn demo() -> CmdResult {
    let f = fixture();
    let rows = rows(&f);
    let missing = coverage(&rows);
    let mut out = crate::output::out();
    writeln!(
        out,
        "tld4 demo: every row runs one TLD4 for a warp of 32 lanes and checks each lane against"
    )?;
    writeln!(
        out,
        "the Vulkan-formula reference (reference/src/lib.rs).\n"
    )?;
    writeln!(
        out,
        "{:<6} {:<46} {:<52} {:>5} {:>6}",
        "form", "variant", "instruction", "lanes", "passed"
    )?;
    let mut all_ok = missing.is_empty();
    for (k, row) in rows.iter().enumerate() {
        let r = run_row(&f, row, 1000 + k as u64);
        let ok = r.error.is_none() && r.passed == r.lanes && r.lanes > 0;
        all_ok &= ok;
        writeln!(
            out,
            "{:<6} {:<46} {:<52} {:>5} {:>6}{}",
            r.form,
            row.variant,
            row.text,
            r.lanes,
            r.passed,
            if ok { "" } else { "  FAIL" }
        )?;
        if let Some(e) = r.error {
            writeln!(out, "       {e}")?;
        }
    }
    if !missing.is_empty() {
        writeln!(out, "\nnot covered: {}", missing.join(", "))?;
    }
    writeln!(
        out,
        "\n{}",
        if all_ok { "all rows passed" } else { "FAILED" }
    )?;
    out.flush()?;
    Ok(if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::EXIT_CHECK_FAILED)
    })
}
