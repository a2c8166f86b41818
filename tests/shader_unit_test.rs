//! A shader unit test written in Rust: build the scenario a shader's TLD4 sees (a texture, a
//! sampler, the handle in a uniform register, per-lane coordinates), run it, and assert on
//! the lanes' registers with `approx`. This is the intended use of `tld4-scenario`.

use approx::assert_relative_eq;
use tld4_scenario::{Lanes, Scenario, Tolerance};
use tld4_textures::{AddressMode, Format, Sampler, Texture, TextureDesc, TextureKind};

/// A 4x4 RGBA8 texture whose red channel is 16 * x + y (so each gathered texel says where
/// it came from), sampled with repeat.
fn shadow_test_scene() -> Result<tld4_scenario::ScenarioBuilder, Box<dyn std::error::Error>> {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 4,
        height: 4,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [16 * x + y, 0, 0, 255])?;
    let mut b = Scenario::builder();
    let t = b.texture(tex)?;
    let s = b.sampler(Sampler::with_address(AddressMode::Repeat))?;
    let h = b.handle("tex", t, s)?;
    b.uniform(4, h)?;
    Ok(b)
}

#[test]
fn each_lane_gathers_the_footprint_around_its_coordinate() -> Result<(), Box<dyn std::error::Error>>
{
    let mut b = shadow_test_scene()?;
    b.instruction("TLD4.R R10, R8, R20, UR4, 2D ;")?;
    // Lane l samples the centre of the texel corner (l % 4 + 1, 1): u = (l % 4 + 1) / 4.
    for lane in 0..32 {
        let u = ((lane % 4) + 1) as f32 / 4.0;
        b.reg(Lanes::one(lane)?, 20, u)?
            .reg(Lanes::one(lane)?, 21, 0.25f32)?;
    }
    let run = b.build()?.execute()?;
    for lane in 0..32 {
        let i1 = (lane % 4 + 1) as u32 % 4; // repeat wraps i = 4 to 0
        let i0 = (lane % 4) as u32;
        // Gather order x, y, z, w = (i0,j1), (i1,j1), (i1,j0), (i0,j0) with j0 = 0, j1 = 1.
        let want = [16 * i0 + 1, 16 * i1 + 1, 16 * i1, 16 * i0];
        for (k, w) in want.iter().enumerate() {
            assert_relative_eq!(
                run.reg_f32(lane, 8 + k as u8),
                *w as f32 / 255.0,
                max_relative = 1e-6
            );
        }
    }
    Ok(())
}

#[test]
fn inactive_and_guarded_lanes_keep_their_registers() -> Result<(), Box<dyn std::error::Error>> {
    let mut b = shadow_test_scene()?;
    b.instruction("@P0 TLD4.R R10, R8, R20, UR4, 2D ;")?
        .active_mask(Lanes(0x0000_ffff))
        .pred(Lanes::ALL, 0, true)?
        .pred(Lanes::range(8, 15)?, 0, false)?
        .reg(Lanes::ALL, 20, 0.5f32)?
        .reg(Lanes::ALL, 21, 0.5f32)?
        .reg(Lanes::ALL, 8, 7u32)?;
    let run = b.build()?.execute()?;
    for lane in 0..32 {
        assert_eq!(run.executed(lane), lane < 8, "lane {lane}");
        if lane >= 8 {
            assert_eq!(run.reg(lane, 8), 7, "lane {lane}");
        } else {
            // (i0,j1) = (1, 2): red 18.
            assert_relative_eq!(run.reg_f32(lane, 8), 18.0 / 255.0, max_relative = 1e-6);
        }
    }
    Ok(())
}

#[test]
fn expectations_and_faults_are_reported_lane_by_lane() -> Result<(), Box<dyn std::error::Error>> {
    let mut b = shadow_test_scene()?;
    b.instruction("TLD4.R R10, R8, R20, UR4, 2D ;")?
        .reg(Lanes::ALL, 20, 0.5f32)?
        .reg(Lanes::ALL, 21, 0.5f32)?
        .expect_reg(Lanes::ALL, 8, 18.0f32 / 255.0, Tolerance::ulps(1))?
        .expect_reg(Lanes::range(0, 3)?, 9, 0.5f32, Tolerance::new(1e-3, 0)?)?;
    let outcome = tld4_scenario::run(&b.build()?);
    assert_eq!(
        (outcome.passed, outcome.failed),
        (28, 4),
        "{:?}",
        outcome.lines
    );
    assert!(
        outcome.lines[1].contains("[FAIL: R9 = "),
        "{}",
        outcome.lines[1]
    );

    // A handle naming no texture faults, as on hardware; the builder says which fault.
    let mut f = shadow_test_scene()?;
    f.instruction("TLD4.R R10, R8, R20, UR4, 2D ;")?
        .uniform(4, 0x0030_0009u32)?
        .expect_fault("unknown_texture_header")?;
    let s = f.build()?;
    assert!(s.execute().is_err());
    assert_eq!(tld4_scenario::run(&s).failed, 0);
    assert!(f_err_is_named());
    Ok(())
}

/// Builder errors name the method and the valid range.
fn f_err_is_named() -> bool {
    let mut b = Scenario::builder();
    let e = b.reg(Lanes::ALL, 255, 0u32).err().expect("R255 is refused");
    e.path == "reg" && e.message.contains("R0..R254")
}
