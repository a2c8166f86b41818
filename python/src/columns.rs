//! Rows of coordinates (numpy's row-major (n, k) layout) into lane columns: the transpose
//! `gather` makes of every 32-lane block, four rows a step in SSE2 shuffles on x86-64 (the
//! baseline target, no detection needed), a row at a time elsewhere. Only moves bits: the
//! columns hold exactly the rows' values, NaN payloads included.

use tld4_textures::LANES;

/// The columns of a block: `cols[a][lane] = rows[lane * K + a]`.
type Cols<'a, const K: usize> = [&'a mut [f32; LANES]; K];

/// A whole block of (s, t) rows (`2 * LANES` values) into two lane columns.
#[inline]
pub fn columns2(rows: &[f32; 2 * LANES], cols: Cols<'_, 2>) {
    #[cfg(target_arch = "x86_64")]
    return sse::columns2(rows, cols);
    #[cfg(not(target_arch = "x86_64"))]
    by_lane(rows, cols);
}

/// A whole block of rows of three (s, t, layer or x, y, z) into three lane columns.
#[inline]
pub fn columns3(rows: &[f32; 3 * LANES], cols: Cols<'_, 3>) {
    #[cfg(target_arch = "x86_64")]
    return sse::columns3(rows, cols);
    #[cfg(not(target_arch = "x86_64"))]
    by_lane(rows, cols);
}

/// A whole block of rows of four (x, y, z, layer) into four lane columns.
#[inline]
pub fn columns4(rows: &[f32; 4 * LANES], cols: Cols<'_, 4>) {
    #[cfg(target_arch = "x86_64")]
    return sse::columns4(rows, cols);
    #[cfg(not(target_arch = "x86_64"))]
    by_lane(rows, cols);
}

/// The same transpose a row at a time (the reference, and other targets).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn by_lane<const K: usize>(rows: &[f32], cols: Cols<'_, K>) {
    for (a, col) in cols.into_iter().enumerate() {
        for (v, row) in col.iter_mut().zip(rows.chunks_exact(K)) {
            *v = row[a];
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse {
    //! Four rows a step. `_mm_shuffle_ps::<M>(a, b)` is [a[M & 3], a[M >> 2 & 3],
    //! b[M >> 4 & 3], b[M >> 6]]; the loads and stores are unaligned, of four values within
    //! the block and the columns (fixed sizes: the compiler proves the bounds).
    use core::arch::x86_64::{
        __m128, _mm_loadu_ps, _mm_movehl_ps, _mm_movelh_ps, _mm_shuffle_ps, _mm_storeu_ps,
        _mm_unpackhi_ps, _mm_unpacklo_ps,
    };

    use tld4_textures::LANES;

    /// The shuffle mask taking a[w], a[x], b[y], b[z].
    const fn m(w: i32, x: i32, y: i32, z: i32) -> i32 {
        w | x << 2 | y << 4 | z << 6
    }

    /// The four values of `rows` from `at`.
    #[inline(always)]
    fn load(rows: &[f32], at: usize) -> __m128 {
        let four = &rows[at..at + 4];
        // SAFETY: `four` holds four f32 (the slice above is checked); SSE2 is part of x86-64.
        unsafe { _mm_loadu_ps(four.as_ptr()) }
    }

    /// `v` into lanes `lane..lane + 4` of `col`.
    #[inline(always)]
    fn store(col: &mut [f32; LANES], lane: usize, v: __m128) {
        let four = &mut col[lane..lane + 4];
        // SAFETY: `four` holds four f32 (the slice above is checked); SSE2 is part of x86-64.
        unsafe { _mm_storeu_ps(four.as_mut_ptr(), v) }
    }

    /// (s, t) rows: a = [s0 t0 s1 t1], b = [s2 t2 s3 t3].
    #[inline(always)]
    pub fn columns2(rows: &[f32; 2 * LANES], [c0, c1]: [&mut [f32; LANES]; 2]) {
        for lane in (0..LANES).step_by(4) {
            let (a, b) = (load(rows, lane * 2), load(rows, lane * 2 + 4));
            // SAFETY: register shuffles; SSE is part of x86-64.
            let (x, y) = unsafe {
                (
                    _mm_shuffle_ps::<{ m(0, 2, 0, 2) }>(a, b),
                    _mm_shuffle_ps::<{ m(1, 3, 1, 3) }>(a, b),
                )
            };
            store(c0, lane, x);
            store(c1, lane, y);
        }
    }

    /// Rows of three: a = [x0 y0 z0 x1], b = [y1 z1 x2 y2], c = [z2 x3 y3 z3].
    #[inline(always)]
    pub fn columns3(rows: &[f32; 3 * LANES], [c0, c1, c2]: [&mut [f32; LANES]; 3]) {
        for lane in (0..LANES).step_by(4) {
            let at = lane * 3;
            let (a, b, c) = (load(rows, at), load(rows, at + 4), load(rows, at + 8));
            // SAFETY: register shuffles; SSE is part of x86-64.
            let (x, y, z) = unsafe {
                // [x2 . x3 .], then [x0 x1 x2 x3]
                let x23 = _mm_shuffle_ps::<{ m(2, 0, 1, 0) }>(b, c);
                let x = _mm_shuffle_ps::<{ m(0, 3, 0, 2) }>(a, x23);
                // [y0 . y1 .] and [y2 . y3 .], then [y0 y1 y2 y3]
                let y01 = _mm_shuffle_ps::<{ m(1, 0, 0, 0) }>(a, b);
                let y23 = _mm_shuffle_ps::<{ m(3, 0, 2, 0) }>(b, c);
                let y = _mm_shuffle_ps::<{ m(0, 2, 0, 2) }>(y01, y23);
                // [z0 . z1 .] and [z2 . z3 .], then [z0 z1 z2 z3]
                let z01 = _mm_shuffle_ps::<{ m(2, 0, 1, 0) }>(a, b);
                let z23 = _mm_shuffle_ps::<{ m(0, 0, 3, 0) }>(c, c);
                let z = _mm_shuffle_ps::<{ m(0, 2, 0, 2) }>(z01, z23);
                (x, y, z)
            };
            store(c0, lane, x);
            store(c1, lane, y);
            store(c2, lane, z);
        }
    }

    /// Rows of four: the 4x4 transpose of four rows.
    #[inline(always)]
    pub fn columns4(rows: &[f32; 4 * LANES], [c0, c1, c2, c3]: [&mut [f32; LANES]; 4]) {
        for lane in (0..LANES).step_by(4) {
            let at = lane * 4;
            let (r0, r1) = (load(rows, at), load(rows, at + 4));
            let (r2, r3) = (load(rows, at + 8), load(rows, at + 12));
            // SAFETY: register shuffles; SSE is part of x86-64.
            let (x, y, z, w) = unsafe {
                // [x0 x1 y0 y1], [z0 z1 w0 w1], [x2 x3 y2 y3], [z2 z3 w2 w3]
                let (t0, t1) = (_mm_unpacklo_ps(r0, r1), _mm_unpackhi_ps(r0, r1));
                let (t2, t3) = (_mm_unpacklo_ps(r2, r3), _mm_unpackhi_ps(r2, r3));
                (
                    _mm_movelh_ps(t0, t2),
                    _mm_movehl_ps(t2, t0),
                    _mm_movelh_ps(t1, t3),
                    _mm_movehl_ps(t3, t1),
                )
            };
            store(c0, lane, x);
            store(c1, lane, y);
            store(c2, lane, z);
            store(c3, lane, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{by_lane, columns2, columns3, columns4};
    use tld4_textures::LANES;

    /// Every value a distinct bit pattern (NaNs with payloads among them).
    fn rows(k: usize) -> Vec<f32> {
        (0..LANES * k)
            .map(|i| f32::from_bits(0x7f80_0001 + i as u32 * 0x0101_0101))
            .collect()
    }

    fn check<const K: usize>(fast: [[f32; LANES]; K], rows: &[f32]) {
        let mut slow = [[0f32; LANES]; K];
        by_lane::<K>(rows, slow.each_mut());
        for a in 0..K {
            for lane in 0..LANES {
                assert_eq!(
                    fast[a][lane].to_bits(),
                    rows[lane * K + a].to_bits(),
                    "K {K} a {a} lane {lane}"
                );
                assert_eq!(
                    slow[a][lane].to_bits(),
                    rows[lane * K + a].to_bits(),
                    "K {K} a {a} lane {lane}"
                );
            }
        }
    }

    #[test]
    fn columns_are_the_rows_transposed_bit_for_bit() {
        let (r2, r3, r4) = (rows(2), rows(3), rows(4));
        let (mut c2, mut c3, mut c4) = ([[0f32; LANES]; 2], [[0f32; LANES]; 3], [[0f32; LANES]; 4]);
        columns2(r2.as_slice().try_into().unwrap(), c2.each_mut());
        columns3(r3.as_slice().try_into().unwrap(), c3.each_mut());
        columns4(r4.as_slice().try_into().unwrap(), c4.each_mut());
        check(c2, &r2);
        check(c3, &r3);
        check(c4, &r4);
    }
}
