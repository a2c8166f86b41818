//! Reading a lane's query from its registers: which register holds each part (one table,
//! [`Sources`]), read lane by lane or register by register for the whole warp.

use tld4_decoder::{HandleForm, RaLayout, RbLayout, Tld4};
use tld4_textures::{GatherQuery, LaneQueries};

use super::Tld4Exec;
use crate::fault::WarpFault;
use crate::regfile::RegisterFile;
use crate::warp::WARP_SIZE;

/// Which lanes of a warp execute and the handle each reads ([`Tld4Exec::lane_handles`]):
/// header index in bits 0-19, sampler index in bits 20-31 (`tld4_textures::Handle`; NAK).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneHandles {
    /// Bit l set: lane l executes (active, guard predicate true).
    pub executed: u32,
    /// Lane l's handle where it executes, else 0.
    pub handles: [u32; WARP_SIZE],
}

/// Which register holds each part of a lane's query (ptxas output, NAK;
/// docs/sources.md, NAK conventions), decided once per instruction: the one place of the
/// operand layout, used lane by lane ([`Tld4Exec::query`]) and register by register
/// ([`Tld4Exec::read_sources`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(super) struct Sources {
    /// The array layer (an unsigned 16-bit integer in the low half).
    layer: Option<u8>,
    /// The coordinates, `ncoords` of them.
    coords: [u8; 3],
    ncoords: u8,
    /// AOFFI: one register; PTP: two.
    offsets: [u8; 2],
    noffsets: u8,
    /// The depth reference.
    dref: Option<u8>,
}

impl Sources {
    /// The static checks keep every register below R255 and below the registers per thread
    /// before any is read, so the additions never wrap where a register is read.
    pub(super) fn new(insn: &Tld4, ra: RaLayout, rb: RbLayout) -> Self {
        let (ra0, rb0) = (insn.ra.0, insn.rb.0);
        let mut s = Sources::default();
        let mut at = ra0;
        if ra.layer {
            s.layer = Some(at);
            at = at.wrapping_add(1);
        }
        s.ncoords = ra.coords.min(3);
        for k in 0..s.ncoords {
            s.coords[k as usize] = at.wrapping_add(k);
        }
        let o = rb0.wrapping_add(rb.offsets_at());
        s.noffsets = rb.offsets.min(2);
        s.offsets = [o, o.wrapping_add(1)];
        if rb.depth_ref {
            s.dref = Some(rb0.wrapping_add(rb.depth_ref_at()));
        }
        s
    }
}

/// Register `r` of the executing lanes `lanes` (mask `executed`), compacted (entry k is lane
/// `lanes[k]`'s value; entries past them are unspecified): the register file's own row
/// when every lane executes and it offers one ([`RegisterFile::reg_row`]), else copied into
/// `buf`.
#[inline(always)]
fn compacted<'a, R: RegisterFile + ?Sized>(
    warp: &'a R,
    r: u8,
    executed: u32,
    lanes: &[u8],
    buf: &'a mut [u32; WARP_SIZE],
) -> &'a [u32; WARP_SIZE] {
    let row = warp.reg_row(r);
    if lanes.len() == WARP_SIZE {
        // every lane executes: lanes[k] == k
        if let Some(row) = row {
            return row;
        }
        warp.reg_lanes(r, executed, buf);
        return buf;
    }
    let mut all = [0u32; WARP_SIZE];
    let row = match row {
        Some(row) => row,
        None => {
            warp.reg_lanes(r, executed, &mut all);
            &all
        }
    };
    for (k, &lane) in lanes.iter().enumerate() {
        buf[k & (WARP_SIZE - 1)] = row[lane as usize & (WARP_SIZE - 1)];
    }
    buf
}

/// Lanes 0..32 in order: the compacted lane list when every lane executes.
const ALL_LANES: [u8; WARP_SIZE] = {
    let mut l = [0u8; WARP_SIZE];
    let mut k = 0;
    while k < WARP_SIZE {
        l[k] = k as u8;
        k += 1;
    }
    l
};

/// The lanes of `executed` in order into `lanes`; returns how many.
#[inline(always)]
pub(super) fn compact_lanes(executed: u32, lanes: &mut [u8; WARP_SIZE]) -> usize {
    if executed == u32::MAX {
        *lanes = ALL_LANES;
        return WARP_SIZE;
    }
    let mut n = 0;
    let mut m = executed;
    while m != 0 {
        lanes[n & (WARP_SIZE - 1)] = m.trailing_zeros() as u8;
        m &= m - 1;
        n += 1;
    }
    n
}

/// The layer operand: an unsigned 16-bit integer in the low half (ptxas output).
#[inline(always)]
fn layer_value(r: u32) -> u32 {
    r & 0xffff
}

/// Sign-extends the low 6 bits (the hardware reads 6-bit signed offsets; docs/sources.md, NAK conventions).
#[inline(always)]
fn sext6(v: u32) -> i8 {
    // (in 32 bits: 8-bit shifts have no vector form on x86)
    (((v << 26) as i32) >> 26) as i8
}

/// AOFFI: x in bits 5:0, y in bits 13:8 of one register (ptxas output: `x | (y << 8)`).
#[inline(always)]
pub fn aoffi_offsets(r: u32) -> [i8; 2] {
    [sext6(r), sext6(r >> 8)]
}

/// Where PTP offset `t` (0..4), axis `a` (x, y) is: register 0 or 1 of the pair, and the
/// byte within it (NAK: bytes {o0.x, o0.y, o1.x, o1.y} and {o2.x, o2.y, o3.x, o3.y}).
#[inline(always)]
fn ptp_slot(t: usize, a: usize) -> (usize, u32) {
    (t / 2, (2 * (t % 2) + a) as u32)
}

/// The four bytes of each lane's register value, byte `b` into `out[b]`, as they are: the
/// texture unit reads an offset's low 6 bits as a signed value itself
/// ([`GatherQuery::offsets`](tld4_textures::GatherQuery::offsets)), so the whole-warp read
/// leaves the sign extension ([`sext6`], which [`Tld4Exec::query`] applies for display) to it.
/// One pass over the warp, each word split into its bytes.
#[inline(always)]
fn unpack_bytes(out: [&mut [i8; WARP_SIZE]; 4], values: &[u32; WARP_SIZE]) {
    let [b0, b1, b2, b3] = out;
    for (k, &v) in values.iter().enumerate() {
        let [x0, x1, x2, x3] = v.to_le_bytes();
        b0[k] = x0 as i8;
        b1[k] = x1 as i8;
        b2[k] = x2 as i8;
        b3[k] = x3 as i8;
    }
}

/// PTP: bytes {o0.x, o0.y, o1.x, o1.y} and {o2.x, o2.y, o3.x, o3.y}, 6-bit signed each (NAK).
#[inline(always)]
pub fn ptp_offsets(r0: u32, r1: u32) -> [[i8; 2]; 4] {
    let byte = |t: usize, a: usize| {
        let (r, b) = ptp_slot(t, a);
        sext6([r0, r1][r] >> (8 * b))
    };
    std::array::from_fn(|t| [byte(t, 0), byte(t, 1)])
}

impl Tld4Exec {
    /// One lane's query, read from its registers ([`Sources`]).
    #[inline(always)]
    pub(super) fn query<R: RegisterFile + ?Sized>(&self, rf: &R, lane: usize) -> GatherQuery {
        let reg = |r: u8| rf.reg(lane, r);
        let s = &self.sources;
        let mut q = GatherQuery::default();
        if let Some(r) = s.layer {
            q.layer = layer_value(reg(r));
        }
        for k in 0..s.ncoords as usize {
            q.coords[k] = f32::from_bits(reg(s.coords[k]));
        }
        match s.noffsets {
            1 => q.offsets[0] = aoffi_offsets(reg(s.offsets[0])),
            2 => q.offsets = ptp_offsets(reg(s.offsets[0]), reg(s.offsets[1])),
            _ => {}
        }
        if let Some(r) = s.dref {
            q.dref = f32::from_bits(reg(r));
        }
        q
    }

    /// Lane `lane`'s gather query as [`Tld4Exec::execute`] reads it from the registers (for
    /// tools that show one lane's footprint; call it only when [`Tld4Exec::static_fault`]
    /// is `None`, which keeps every register in range).
    pub fn lane_query<R: RegisterFile + ?Sized>(&self, rf: &R, lane: usize) -> GatherQuery {
        self.query(rf, lane)
    }

    /// The handle lane `lane` uses: the uniform register (URZ reads 0) or its first Rb
    /// register, as [`Tld4Exec::execute`] reads it.
    pub fn lane_handle<R: RegisterFile + ?Sized>(&self, rf: &R, lane: usize) -> u32 {
        match self.insn.form {
            HandleForm::Uniform if self.insn.ur.is_urz() => 0,
            HandleForm::Uniform => rf.ureg(self.insn.ur.0),
            HandleForm::Register => rf.reg(lane, self.insn.rb.0),
        }
    }

    /// Each executing lane's handle ([`Tld4Exec::lane_handle`]), after the faults an
    /// execution raises before reading a lane ([`Tld4Exec::static_fault`]): the lanes that
    /// execute (active, guard true) and their handles, 0 for the others. Reads no texture.
    pub fn lane_handles<R: RegisterFile + ?Sized>(&self, rf: &R) -> Result<LaneHandles, WarpFault> {
        let (_, executed) = self.executing(rf)?;
        let mut handles = [0u32; WARP_SIZE];
        for (lane, h) in handles.iter_mut().enumerate() {
            if executed >> lane & 1 != 0 {
                *h = self.lane_handle(rf, lane);
            }
        }
        Ok(LaneHandles { executed, handles })
    }

    /// Every executing lane's query, read register by register ([`Sources`]) into
    /// structure of arrays, compacted: query k is lane `lanes[k]`. Returns the lane count.
    #[inline(always)]
    pub(super) fn read_sources<R: RegisterFile + ?Sized>(
        &self,
        warp: &R,
        executed: u32,
        queries: &mut LaneQueries,
        lanes: &mut [u8; WARP_SIZE],
    ) -> usize {
        let n = compact_lanes(executed, lanes);
        let lanes = &lanes[..n];
        let s = &self.sources;
        let mut buf = [0u32; WARP_SIZE];
        // each source one pass over the whole warp (lanes past the executing ones are
        // computed from unspecified entries and never used); each row is mapped as a whole
        // array (`map` of the copied row: read lane by lane through the reference, the
        // compiler cannot rule out that it overlaps the queries, and copies one lane at a
        // time instead of a vector)
        if let Some(r) = s.layer {
            let v = compacted(warp, r, executed, lanes, &mut buf);
            queries.layer = v.map(layer_value);
        }
        for a in 0..s.ncoords as usize {
            let v = compacted(warp, s.coords[a], executed, lanes, &mut buf);
            queries.coords[a] = v.map(f32::from_bits);
        }
        match s.noffsets {
            1 => {
                // AOFFI: x in byte 0, y in byte 1 (bytes 2 and 3 into scratch)
                let v = *compacted(warp, s.offsets[0], executed, lanes, &mut buf);
                let (mut z2, mut z3) = ([0i8; WARP_SIZE], [0i8; WARP_SIZE]);
                let [xs, ys] = &mut queries.offsets[0];
                unpack_bytes([xs, ys, &mut z2, &mut z3], &v);
            }
            2 => {
                // PTP: register 0 holds offsets 0 and 1, register 1 offsets 2 and 3, each
                // as bytes x, y (`ptp_slot`)
                for (reg, &r) in s.offsets.iter().enumerate() {
                    let v = *compacted(warp, r, executed, lanes, &mut buf);
                    let [o0, o1] = &mut queries.offsets[2 * reg..2 * reg + 2] else {
                        unreachable!("two offsets a register")
                    };
                    let ([x0, y0], [x1, y1]) = (o0, o1);
                    unpack_bytes([x0, y0, x1, y1], &v);
                }
            }
            _ => {}
        }
        if let Some(r) = s.dref {
            let v = compacted(warp, r, executed, lanes, &mut buf);
            queries.dref = v.map(f32::from_bits);
        }
        // at most 32 lanes: never refused
        let _ = queries.set_len(lanes.len());
        lanes.len()
    }
}
