//! Unit-testing compiled shader code: the TLD4 that nvcc/ptxas made of `tex2Dgather` in
//! examples/cuda/gather.cu, taken from the cubin by (kernel, offset) and run in tld4-emu for a
//! warp, checked against the footprint the Vulkan gather formulas give for each lane.

use tld4_cubin::{extract, Cubin, SM100};
use tld4_emu::{ExecConfig, Tld4Exec, WarpState};
use tld4_textures::{
    AddressMode, Format, Handle, Sampler, Texture, TextureDesc, TextureKind, TexturePool,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/cuda/");
const W: usize = 4;

#[test]
fn gather_quad_gathers_each_lanes_2x2_footprint() {
    let bytes = std::fs::read(format!("{DIR}gather.sm100.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes, &[SM100]).unwrap();
    // The kernel's one TLD4 (nvdisasm -c shows it at 0x0310).
    let sites: Vec<_> = cubin.kernel("gather_quad").unwrap().tld4s().collect();
    assert_eq!(sites.len(), 1);
    let site = cubin.tld4_at("gather_quad", sites[0].offset).unwrap();
    // Decoded with the cubin's architecture's tables (sm_100); `.insn` is the instruction the
    // executor takes (the sm_100 family's).
    let decoded = site.decoded.unwrap();
    assert_eq!(decoded.text(), "TLD4.R R10, R8, R2, UR4, 2D ;");
    let insn = decoded.insn;
    let exec = Tld4Exec::new(&insn, ExecConfig::default());

    // The texture main() makes: 4x4 R32F, texel (x, y) = y * 4 + x; clamp, point sampling.
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::R32Float,
        width: W as u32,
        height: W as u32,
        layers: 1,
    };
    let texel = |x: i64, y: i64| (y.clamp(0, 3) * 4 + x.clamp(0, 3)) as f32;
    let fields: Vec<u32> = (0..W * W).map(|i| (i as f32).to_bits()).collect();
    let mut pool = TexturePool::new();
    let t = pool
        .add_texture(Texture::from_fields(desc, &fields).unwrap())
        .unwrap();
    let s = pool
        .add_sampler(Sampler {
            address_u: AddressMode::ClampToEdge,
            address_v: AddressMode::ClampToEdge,
            ..Sampler::default()
        })
        .unwrap();

    // Thread (x, y) of the 4x4 block is lane y * 4 + x; lanes 16-31 run rows 4-7 (clamped).
    // Ra = R2, R3 = (u, v) = ((x + 0.5) / 4, (y + 0.5) / 4), the handle in UR4 (ptxas's
    // operands, read from the TLD4 itself).
    let mut warp = WarpState::new();
    warp.set_ureg(insn.ur.0, Handle::new(t, s).unwrap().0);
    let ra = insn.ra.0;
    for lane in 0..32 {
        let (x, y) = (lane % W, lane / W);
        warp.set_reg_f32(lane, ra, (x as f32 + 0.5) / W as f32);
        warp.set_reg_f32(lane, ra + 1, (y as f32 + 0.5) / W as f32);
    }
    exec.execute(&mut warp, &pool).unwrap();

    // At a texel centre the footprint is (x, y)..(x + 1, y + 1); gather order x = (i0, j1),
    // y = (i1, j1), z = (i1, j0), w = (i0, j0) (Vulkan, "Texel Gathering"); results x, y in
    // Rd, Rd + 1 and z, w in Rd2, Rd2 + 1.
    let (rd, rd2) = (insn.rd.0, insn.rd2.0);
    for lane in 0..32 {
        let (x, y) = ((lane % W) as i64, (lane / W) as i64);
        let want = [
            texel(x, y + 1),
            texel(x + 1, y + 1),
            texel(x + 1, y),
            texel(x, y),
        ];
        let got = [
            warp.reg_f32(lane, rd),
            warp.reg_f32(lane, rd + 1),
            warp.reg_f32(lane, rd2),
            warp.reg_f32(lane, rd2 + 1),
        ];
        assert_eq!(got, want, "lane {lane}");
    }
}

#[test]
fn the_host_object_embeds_the_same_tld4s() {
    let cubin = std::fs::read(format!("{DIR}gather.sm100.cubin")).unwrap();
    let object = std::fs::read(format!("{DIR}gather.o")).unwrap();
    let images = extract(&object, &[SM100]).unwrap();
    assert_eq!(images.len(), 1);
    let direct = Cubin::parse(&cubin, &[SM100]).unwrap();
    let direct = direct.tld4s();
    let embedded = Cubin::parse(&images[0].bytes, &[SM100]).unwrap();
    let embedded = embedded.tld4s();
    assert_eq!(embedded.len(), 2);
    assert_eq!(embedded, direct);
}
