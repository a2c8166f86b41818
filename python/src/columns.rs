//! Rows of coordinates (numpy's row-major (n, k) layout) into lane columns: the transpose
//! `gather` makes of every 32-lane block, eight rows a step in AVX shuffles on x86-64 CPUs
//! that have it, a row at a time elsewhere; an array's float layers are converted
//! ([`float_layers`]) as they leave the transpose. Only moves bits otherwise: the columns
//! hold exactly the rows' values, NaN payloads included.

use tld4_textures::{float_layers, LANES};

/// The columns of a block: `cols[a][lane] = rows[lane * K + a]`.
type Cols<'a, const K: usize> = [&'a mut [f32; LANES]; K];

/// A whole block of (s, t) rows (`2 * LANES` values) into two lane columns.
#[inline]
pub fn columns2(rows: &[f32; 2 * LANES], cols: Cols<'_, 2>) {
    #[cfg(target_arch = "x86_64")]
    return avx::columns2(rows, cols);
    #[cfg(not(target_arch = "x86_64"))]
    by_lane(rows, cols);
}

/// Where a block's last coordinate goes: a lane column as it is (a cube's z), or array layers
/// converted by [`float_layers`] on the way ([`Layers`]), in the registers of the transpose.
pub trait Last {
    /// The last coordinate of lanes `lane..lane + N`.
    fn put<const N: usize>(&mut self, lane: usize, values: &[f32; N]);
}

impl Last for &mut [f32; LANES] {
    #[inline(always)]
    fn put<const N: usize>(&mut self, lane: usize, values: &[f32; N]) {
        self[lane..lane + N].copy_from_slice(values);
    }
}

/// The lanes' array layers, from float layers converted as NVIDIA's compiler does.
pub struct Layers<'a>(pub &'a mut [u32; LANES]);

impl Last for Layers<'_> {
    #[inline(always)]
    fn put<const N: usize>(&mut self, lane: usize, values: &[f32; N]) {
        let out = self.0[lane..lane + N].first_chunk_mut().expect("N lanes");
        float_layers(values, out);
    }
}

/// A whole block of rows of three (s, t, layer or x, y, z) into two lane columns and `last`.
#[inline]
pub fn columns3(rows: &[f32; 3 * LANES], cols: Cols<'_, 2>, last: impl Last) {
    #[cfg(target_arch = "x86_64")]
    return avx::columns3(rows, cols, last);
    #[cfg(not(target_arch = "x86_64"))]
    with_last(rows, cols, last);
}

/// A whole block of rows of four (x, y, z, layer) into three lane columns and `last`.
#[inline]
pub fn columns4(rows: &[f32; 4 * LANES], cols: Cols<'_, 3>, last: impl Last) {
    #[cfg(target_arch = "x86_64")]
    return avx::columns4(rows, cols, last);
    #[cfg(not(target_arch = "x86_64"))]
    with_last(rows, cols, last);
}

/// [`by_lane`] with the last coordinate put into `last`: `J` columns of rows of `J + 1`.
fn with_last<const J: usize>(rows: &[f32], cols: Cols<'_, J>, mut last: impl Last) {
    for (a, col) in cols.into_iter().enumerate() {
        for (v, row) in col.iter_mut().zip(rows.chunks_exact(J + 1)) {
            *v = row[a];
        }
    }
    let mut column = [0f32; LANES];
    for (v, row) in column.iter_mut().zip(rows.chunks_exact(J + 1)) {
        *v = row[J];
    }
    last.put(0, &column);
}

/// The same transpose a row at a time (the reference, CPUs without AVX, other targets).
fn by_lane<const K: usize>(rows: &[f32], cols: Cols<'_, K>) {
    for (a, col) in cols.into_iter().enumerate() {
        for (v, row) in col.iter_mut().zip(rows.chunks_exact(K)) {
            *v = row[a];
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod avx {
    //! Eight rows a step in AVX (checked each block, a load of std's cached answer; most
    //! x86-64 CPUs since 2011 have it, not all: some Atom, Celeron and Pentium parts lack
    //! it), a row at a time without. Each 256-bit register holds four rows' values in its low
    //! half and the next four rows' in its high half, so a shuffle, which works in each half
    //! alone, transposes two groups of four rows at once. `_mm256_shuffle_ps::<M>(a, b)` is,
    //! in each half, [a[M & 3], a[M >> 2 & 3], b[M >> 4 & 3], b[M >> 6]].
    use core::arch::x86_64::{
        __m256, _mm256_loadu2_m128, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_unpackhi_ps,
        _mm256_unpacklo_ps,
    };

    use super::{by_lane, with_last, Cols, Last};
    use tld4_textures::LANES;

    /// The shuffle mask taking a[w], a[x], b[y], b[z] in each half.
    const fn m(w: i32, x: i32, y: i32, z: i32) -> i32 {
        w | x << 2 | y << 4 | z << 6
    }

    /// Whether this CPU runs AVX (std caches the answer).
    #[inline(always)]
    fn has_avx() -> bool {
        std::arch::is_x86_feature_detected!("avx")
    }

    /// Four values of `rows` from `at` (low half) and four from `at + step` (high half).
    #[inline(always)]
    fn load(rows: &[f32], at: usize, step: usize) -> __m256 {
        let (lo, hi) = (&rows[at..at + 4], &rows[at + step..at + step + 4]);
        // SAFETY: `lo` and `hi` hold four f32 each (the slices above are checked); the
        // callers run only where AVX was detected.
        unsafe { _mm256_loadu2_m128(hi.as_ptr(), lo.as_ptr()) }
    }

    /// `v` into lanes `lane..lane + 8` of `col`.
    #[inline(always)]
    fn store(col: &mut [f32; LANES], lane: usize, v: __m256) {
        let eight = &mut col[lane..lane + 8];
        // SAFETY: `eight` holds eight f32 (the slice above is checked); AVX was detected.
        unsafe { _mm256_storeu_ps(eight.as_mut_ptr(), v) }
    }

    /// The eight values of `v` (kept in registers where the caller converts them).
    #[inline(always)]
    fn values(v: __m256) -> [f32; 8] {
        let mut out = [0f32; 8];
        // SAFETY: `out` holds eight f32; AVX was detected.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) };
        out
    }

    /// (s, t) rows: a = [s0 t0 s1 t1 | s4 t4 s5 t5], b = [s2 t2 s3 t3 | s6 t6 s7 t7].
    pub fn columns2(rows: &[f32; 2 * LANES], cols: Cols<'_, 2>) {
        if !has_avx() {
            return by_lane(rows, cols);
        }
        // SAFETY: AVX was detected.
        unsafe { columns2_avx(rows, cols) }
    }

    /// [`columns2`], compiled for AVX (the caller detected it).
    #[target_feature(enable = "avx")]
    fn columns2_avx(rows: &[f32; 2 * LANES], [c0, c1]: Cols<'_, 2>) {
        for lane in (0..LANES).step_by(8) {
            let (a, b) = (load(rows, lane * 2, 8), load(rows, lane * 2 + 4, 8));
            store(c0, lane, _mm256_shuffle_ps::<{ m(0, 2, 0, 2) }>(a, b));
            store(c1, lane, _mm256_shuffle_ps::<{ m(1, 3, 1, 3) }>(a, b));
        }
    }

    /// Rows of three: a = [x0 y0 z0 x1 | ...], b = [y1 z1 x2 y2 | ...],
    /// c = [z2 x3 y3 z3 | ...] (rows 4..8 in the high halves).
    pub fn columns3(rows: &[f32; 3 * LANES], cols: Cols<'_, 2>, last: impl Last) {
        if !has_avx() {
            return with_last(rows, cols, last);
        }
        // SAFETY: AVX was detected.
        unsafe { columns3_avx(rows, cols, last) }
    }

    /// [`columns3`], compiled for AVX (the caller detected it).
    #[target_feature(enable = "avx")]
    fn columns3_avx(rows: &[f32; 3 * LANES], [c0, c1]: Cols<'_, 2>, mut last: impl Last) {
        for lane in (0..LANES).step_by(8) {
            let at = lane * 3;
            let (a, b, c) = (
                load(rows, at, 12),
                load(rows, at + 4, 12),
                load(rows, at + 8, 12),
            );
            // [x2 . x3 .], then [x0 x1 x2 x3]
            let x23 = _mm256_shuffle_ps::<{ m(2, 0, 1, 0) }>(b, c);
            let x = _mm256_shuffle_ps::<{ m(0, 3, 0, 2) }>(a, x23);
            // [y0 . y1 .] and [y2 . y3 .], then [y0 y1 y2 y3]
            let y01 = _mm256_shuffle_ps::<{ m(1, 0, 0, 0) }>(a, b);
            let y23 = _mm256_shuffle_ps::<{ m(3, 0, 2, 0) }>(b, c);
            let y = _mm256_shuffle_ps::<{ m(0, 2, 0, 2) }>(y01, y23);
            // [z0 . z1 .] and [z2 . z3 .], then [z0 z1 z2 z3]
            let z01 = _mm256_shuffle_ps::<{ m(2, 0, 1, 0) }>(a, b);
            let z23 = _mm256_shuffle_ps::<{ m(0, 0, 3, 0) }>(c, c);
            let z = _mm256_shuffle_ps::<{ m(0, 2, 0, 2) }>(z01, z23);
            store(c0, lane, x);
            store(c1, lane, y);
            last.put(lane, &values(z));
        }
    }

    /// Rows of four: the 4x4 transpose of rows 0..4 and of rows 4..8 at once.
    pub fn columns4(rows: &[f32; 4 * LANES], cols: Cols<'_, 3>, last: impl Last) {
        if !has_avx() {
            return with_last(rows, cols, last);
        }
        // SAFETY: AVX was detected.
        unsafe { columns4_avx(rows, cols, last) }
    }

    /// [`columns4`], compiled for AVX (the caller detected it).
    #[target_feature(enable = "avx")]
    fn columns4_avx(rows: &[f32; 4 * LANES], [c0, c1, c2]: Cols<'_, 3>, mut last: impl Last) {
        for lane in (0..LANES).step_by(8) {
            let at = lane * 4;
            let (r0, r1) = (load(rows, at, 16), load(rows, at + 4, 16));
            let (r2, r3) = (load(rows, at + 8, 16), load(rows, at + 12, 16));
            // [x0 x1 y0 y1], [z0 z1 w0 w1], [x2 x3 y2 y3], [z2 z3 w2 w3] (each half)
            let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
            store(c0, lane, _mm256_shuffle_ps::<{ m(0, 1, 0, 1) }>(t0, t2));
            store(c1, lane, _mm256_shuffle_ps::<{ m(2, 3, 2, 3) }>(t0, t2));
            store(c2, lane, _mm256_shuffle_ps::<{ m(0, 1, 0, 1) }>(t1, t3));
            last.put(
                lane,
                &values(_mm256_shuffle_ps::<{ m(2, 3, 2, 3) }>(t1, t3)),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{by_lane, columns2, columns3, columns4, with_last, Layers};
    use tld4_textures::{float_layer, LANES};

    /// Every value a distinct bit pattern (NaNs with payloads among them).
    fn rows(k: usize) -> Vec<f32> {
        (0..LANES * k)
            .map(|i| f32::from_bits(0x7f80_0001 + i as u32 * 0x0101_0101))
            .collect()
    }

    /// `cols[a][lane]` is `rows[lane * K + a]`, bit for bit.
    fn check<const K: usize>(cols: &[[f32; LANES]; K], rows: &[f32], what: &str) {
        for (a, col) in cols.iter().enumerate() {
            for (lane, v) in col.iter().enumerate() {
                let want = rows[lane * K + a].to_bits();
                assert_eq!(v.to_bits(), want, "{what}: column {a} lane {lane}");
            }
        }
    }

    #[test]
    fn columns_are_the_rows_transposed_bit_for_bit() {
        let r2 = rows(2);
        let mut c = [[0f32; LANES]; 2];
        columns2(r2.as_slice().try_into().unwrap(), c.each_mut());
        check(&c, &r2, "columns2");
        let mut c = [[0f32; LANES]; 2];
        by_lane(&r2, c.each_mut());
        check(&c, &r2, "by_lane");
        let r3 = rows(3);
        let mut c = [[0f32; LANES]; 3];
        let [c0, c1, c2] = c.each_mut();
        columns3(r3.as_slice().try_into().unwrap(), [c0, c1], c2);
        check(&c, &r3, "columns3");
        let mut c = [[0f32; LANES]; 3];
        let [c0, c1, c2] = c.each_mut();
        with_last(&r3, [c0, c1], c2);
        check(&c, &r3, "with_last 3");
        let r4 = rows(4);
        let mut c = [[0f32; LANES]; 4];
        let [c0, c1, c2, c3] = c.each_mut();
        columns4(r4.as_slice().try_into().unwrap(), [c0, c1, c2], c3);
        check(&c, &r4, "columns4");
        let mut c = [[0f32; LANES]; 4];
        let [c0, c1, c2, c3] = c.each_mut();
        with_last(&r4, [c0, c1, c2], c3);
        check(&c, &r4, "with_last 4");
    }

    #[test]
    fn layers_are_the_last_coordinate_converted() {
        // halves, negatives, NaN, infinities and past 65535 among the float layers
        let special = [
            0.5,
            1.5,
            -0.5,
            2.49,
            65535.5,
            70000.0,
            f32::NAN,
            f32::INFINITY,
        ];
        let mut r4 = rows(4);
        for (lane, l) in special.iter().enumerate() {
            r4[lane * 4 + 3] = *l;
        }
        let r3: Vec<f32> = r4
            .chunks_exact(4)
            .flat_map(|r| [r[0], r[1], r[3]])
            .collect();
        let want: Vec<u32> = r4.chunks_exact(4).map(|r| float_layer(r[3])).collect();
        let mut c = [[0f32; LANES]; 3];
        let mut layers = [0u32; LANES];
        columns4(
            r4.as_slice().try_into().unwrap(),
            c.each_mut(),
            Layers(&mut layers),
        );
        assert_eq!(layers.as_slice(), want, "columns4");
        layers = [0; LANES];
        with_last(&r4, c.each_mut(), Layers(&mut layers));
        assert_eq!(layers.as_slice(), want, "with_last 4");
        layers = [0; LANES];
        let [c0, c1, _] = c.each_mut();
        columns3(
            r3.as_slice().try_into().unwrap(),
            [c0, c1],
            Layers(&mut layers),
        );
        assert_eq!(layers.as_slice(), want, "columns3");
        layers = [0; LANES];
        let [c0, c1, _] = c.each_mut();
        with_last(&r3, [c0, c1], Layers(&mut layers));
        assert_eq!(layers.as_slice(), want, "with_last 3");
    }
}
