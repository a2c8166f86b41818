//! The query records the kernels read (native: coordinates, offsets, depth reference; raw: the
//! TLD4's A and B vectors) and the deterministic words the phases draw coordinates from.

pub(crate) fn f(x: f32) -> u32 {
    x.to_bits()
}

/// A native query: coordinates (as f32 unless noted), offsets, depth reference.
pub(crate) fn nq(c: [u32; 4], off: (i32, i32), dref: f32) -> [u32; 7] {
    [
        c[0],
        c[1],
        c[2],
        c[3],
        off.0 as u32,
        off.1 as u32,
        dref.to_bits(),
    ]
}

pub(crate) fn nq2(u: f32, v: f32) -> [u32; 7] {
    nq([f(u), f(v), 0, 0], (0, 0), 0.0)
}

/// A raw query: Ra vector A, Rb vector B.
pub(crate) fn rq(a: [u32; 4], b: [u32; 4]) -> [u32; 8] {
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
}

/// Deterministic words (splitmix64, Vigna's constants).
pub(crate) fn splitmix(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}
