//! The PTX source of the probe's kernels, generated here so that the committed
//! `kernels/tld4_probe.ptx` is checked against its generator (a test compares the two).
//!
//! Two families:
//! - `nat_*`: plain PTX `tld4`, compiled by ptxas with its own operand set-up. These measure
//!   what a CUDA program gets (ptxas packs AOFFI offsets, clamps layers, normalizes cube
//!   directions first: docs/sources.md, What ptxas emits).
//! - `raw`: one kernel whose TLD4 word is patched (see `patch.rs`) to read its Ra and Rb vectors
//!   straight from registers loaded from the query record, and to write its results over a
//!   vector of sentinels, so every field of the word can be varied, including what PTX cannot
//!   express (PTP, F16.RN/RZ, write masks, the predicate destination).
//!
//! Record layouts (little-endian u32 words):
//! - `nat_*` query, 8 words: c0..c3 (the PTX coordinate vector: {u, v} for 2d, {layer, u, v}
//!   for a2d, {x, y, z} for cube, {layer, x, y, z} for acube), offset x, offset y, depth
//!   reference, unused. Result, 8 words: the 4 destination registers, the PTX residency
//!   predicate (1 = resident), 3 zeros.
//! - `raw` query, 12 words: `A[4]` (Ra vector), `B[4]` (Rb vector), `C[4]` (sentinels the patched
//!   TLD4 writes over). Result, 20 words: `D[4]` (the unpatched destination; stale after
//!   patching), P (PTX predicate as SEL stored it) and 3 zeros, `C[4]` after the TLD4, `A[4]`, `B[4]`.

/// The PTX ISA version of the file: 7.8 is what ptxas 11.8 accepts, so that the committed
/// cubins can be built by the oldest toolkit that knows sm_90 (CUDA 11.8) and load on any
/// driver that runs an H200.
pub const PTX_VERSION: &str = "7.8";

/// Words per `nat_*` query record and result record.
pub const NAT_Q_WORDS: usize = 8;
/// Words per `nat_*` result record.
pub const NAT_R_WORDS: usize = 8;
/// Words per `raw` query record.
pub const RAW_Q_WORDS: usize = 12;
/// Words per `raw` result record.
pub const RAW_R_WORDS: usize = 20;

/// The PTX geometry of a native kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geom {
    /// `.2d`
    D2,
    /// `.a2d`
    A2d,
    /// `.cube`
    Cube,
    /// `.acube`
    Acube,
}

impl Geom {
    /// The PTX modifier.
    pub fn ptx(self) -> &'static str {
        match self {
            Geom::D2 => "2d",
            Geom::A2d => "a2d",
            Geom::Cube => "cube",
            Geom::Acube => "acube",
        }
    }
    /// The coordinate operand, from registers %r10..%r13 (integers) and %f1..%f4 (floats).
    /// The layer of a2d/acube is an integer (PTX ISA, `tld4`: "the first element is the
    /// array index, a .u32").
    fn coords(self) -> &'static str {
        match self {
            Geom::D2 => "{%f1, %f2}",
            Geom::A2d => "{%r10, %f2, %f3, %f4}",
            Geom::Cube => "{%f1, %f2, %f3, %f4}",
            Geom::Acube => "{%r10, %f2, %f3, %f4}",
        }
    }
}

/// One native kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NatKernel {
    /// The entry name.
    pub name: String,
    /// The geometry.
    pub geom: Geom,
    /// The component: r, g, b or a.
    pub comp: char,
    /// The PTX destination type: f32, s32 or u32 (ptxas emits the same word for all three:
    /// the result type comes from the texture, measured with ptxas 11.8 for sm_90).
    pub dtype: &'static str,
    /// With an AOFFI offset operand (PTX allows it for 2d and a2d only: ptxas refuses
    /// `.cube` with offsets).
    pub aoffi: bool,
    /// With a depth reference operand.
    pub dc: bool,
}

/// Every native kernel of the probe.
pub fn nat_kernels() -> Vec<NatKernel> {
    let mut v = Vec::new();
    let mut push = |geom: Geom, comp: char, dtype: &'static str, aoffi: bool, dc: bool| {
        let mut name = format!("nat_{}_{}", geom.ptx(), comp);
        if dtype != "f32" {
            name.push('_');
            name.push_str(dtype);
        }
        if aoffi {
            name.push_str("_aoffi");
        }
        if dc {
            name.push_str("_dc");
        }
        v.push(NatKernel {
            name,
            geom,
            comp,
            dtype,
            aoffi,
            dc,
        });
    };
    for comp in ['r', 'g', 'b', 'a'] {
        push(Geom::D2, comp, "f32", false, false);
        push(Geom::D2, comp, "f32", true, false);
    }
    push(Geom::D2, 'r', "f32", false, true);
    push(Geom::D2, 'r', "f32", true, true);
    // The form docs/sources.md quotes from ptxas for sm_100: `TLD4.A.AOFFI.DC`.
    push(Geom::D2, 'a', "f32", true, true);
    push(Geom::D2, 'r', "s32", false, false);
    push(Geom::D2, 'r', "u32", false, false);
    push(Geom::A2d, 'r', "f32", false, false);
    push(Geom::A2d, 'r', "f32", true, false);
    push(Geom::A2d, 'r', "f32", false, true);
    push(Geom::Cube, 'r', "f32", false, false);
    push(Geom::Cube, 'g', "f32", false, false);
    push(Geom::Cube, 'r', "f32", false, true);
    push(Geom::Acube, 'r', "f32", false, false);
    push(Geom::Acube, 'r', "f32", false, true);
    v
}

const PROLOGUE: &str = "  .reg .u64 %rd<8>;
  .reg .f32 %f<8>;
  .reg .b32 %r<32>;
  .reg .pred %p<3>;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  ld.param.u32 %r5, [n];
  setp.ge.u32 %p1, %r4, %r5;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [tex];
  ld.param.u64 %rd2, [q];
  ld.param.u64 %rd3, [o];
";

fn entry(name: &str, body: &str) -> String {
    format!(
        ".visible .entry {name}(\n  .param .u64 tex,\n  .param .u64 q,\n  .param .u64 o,\n  .param .u32 n\n)\n{{\n{PROLOGUE}{body}DONE:\n  ret;\n}}\n\n"
    )
}

fn nat_body(k: &NatKernel) -> String {
    let mut extra = String::new();
    if k.aoffi {
        extra.push_str(", {%r14, %r15}");
    }
    if k.dc {
        extra.push_str(", %f5");
    }
    format!(
        "  mul.wide.u32 %rd4, %r4, 32;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.v4.b32 {{%r10, %r11, %r12, %r13}}, [%rd5];
  ld.global.v4.b32 {{%r14, %r15, %r16, %r17}}, [%rd5+16];
  mov.b32 %f1, %r10;
  mov.b32 %f2, %r11;
  mov.b32 %f3, %r12;
  mov.b32 %f4, %r13;
  mov.b32 %f5, %r16;
  tld4.{comp}.{geom}.v4.{dtype}.f32 {{%r6, %r7, %r8, %r9}}|%p2, [%rd1, {coords}]{extra};
  selp.u32 %r18, 1, 0, %p2;
  mov.u32 %r19, 0;
  add.u64 %rd6, %rd3, %rd4;
  st.global.v4.b32 [%rd6], {{%r6, %r7, %r8, %r9}};
  st.global.v4.b32 [%rd6+16], {{%r18, %r19, %r19, %r19}};
",
        comp = k.comp,
        geom = k.geom.ptx(),
        dtype = k.dtype,
        coords = k.geom.coords(),
    )
}

/// The body of `raw`. The first coordinate is `a0 ^ (c0 & b3)` so that the TLD4 depends on
/// all three loads and ptxas must issue the load of C before it (without that dependence
/// ptxas 11.8 scheduled it after the TLD4, where it would overwrite the patched results).
/// The stores are volatile so that ptxas keeps their order: D, P, C, A, B; the store of D
/// waits for the TLD4's results, so the later store of C sees them too. A, B and C are
/// stored back last, which keeps each in the quad its load wrote until after the TLD4.
const RAW_BODY: &str = "  mul.wide.u32 %rd4, %r4, 48;
  add.u64 %rd5, %rd2, %rd4;
  ld.global.v4.b32 {%r10, %r11, %r12, %r13}, [%rd5];
  ld.global.v4.b32 {%r14, %r15, %r16, %r17}, [%rd5+16];
  ld.global.v4.b32 {%r18, %r19, %r20, %r21}, [%rd5+32];
  and.b32 %r22, %r18, %r17;
  xor.b32 %r23, %r10, %r22;
  mov.b32 %f1, %r23;
  mov.b32 %f2, %r11;
  mov.b32 %f5, %r16;
  tld4.r.2d.v4.f32.f32 {%r6, %r7, %r8, %r9}|%p2, [%rd1, {%f1, %f2}], {%r14, %r15}, %f5;
  selp.u32 %r24, 1, 0, %p2;
  mov.u32 %r25, 0;
  mul.wide.u32 %rd6, %r4, 80;
  add.u64 %rd7, %rd3, %rd6;
  st.volatile.global.v4.b32 [%rd7], {%r6, %r7, %r8, %r9};
  st.volatile.global.v4.b32 [%rd7+16], {%r24, %r25, %r25, %r25};
  st.volatile.global.v4.b32 [%rd7+32], {%r18, %r19, %r20, %r21};
  st.volatile.global.v4.b32 [%rd7+48], {%r10, %r11, %r12, %r13};
  st.volatile.global.v4.b32 [%rd7+64], {%r14, %r15, %r16, %r17};
";

/// What a PTX file is written for: its `.version` and `.target` lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxTarget {
    /// The PTX ISA version.
    pub version: &'static str,
    /// The `.target` architecture.
    pub target: &'static str,
    /// The committed file's name under `kernels/`.
    pub file: &'static str,
}

/// The SM90 file: what ptxas 11.8 compiles into the committed, patchable cubin.
pub const SM90: PtxTarget = PtxTarget {
    version: PTX_VERSION,
    target: "sm_90",
    file: "tld4_probe.ptx",
};

/// The portable file, for any GPU from SM75 to SM121: the driver compiles it for the GPU at
/// hand (PTX is forward-compatible: a `.target sm_75` module JIT-compiles for every later
/// architecture, PTX ISA "PTX Module Directives: .target"), and so does ptxas/nvcc
/// `-arch=sm_NN` for any NN >= 75. `.target sm_75` is the oldest architecture in the decoder
/// (docs/sources.md, TLD4 on every architecture); `.version 7.1` is the oldest PTX ISA with
/// `tld4`'s destination predicate `d|p` (PTX ISA, `tld4`, PTX ISA Notes), the oldest a driver
/// must know, so a CUDA 11.1 driver or later runs it. ptxas 11.8 and 13.5 accept it
/// (`oracles/hw-probe/tests/tools.rs`), and ptxas refuses the file with `.version 7.0` (same test).
pub const PORTABLE: PtxTarget = PtxTarget {
    version: "7.1",
    target: "sm_75",
    file: "tld4_probe.portable.ptx",
};

/// The whole SM90 PTX file (`kernels/tld4_probe.ptx`).
pub fn ptx_source() -> String {
    ptx_source_for(&SM90)
}

/// The whole PTX file for a target: the same kernels, with the same names and records, in
/// every file.
pub fn ptx_source_for(t: &PtxTarget) -> String {
    let mut s = format!(
        "// Generated by `tld4-hw-probe gen-ptx` (oracles/hw-probe/src/ptx.rs); do not edit.\n\
         // Kernels of the TLD4 hardware probe: record layouts are described in ptx.rs.\n\
         .version {}\n.target {}\n.address_size 64\n\n",
        t.version, t.target
    );
    for k in nat_kernels() {
        s.push_str(&entry(&k.name, &nat_body(&k)));
    }
    s.push_str(&entry("raw", RAW_BODY));
    s
}
