//! A [`DetachedGatherer`] gathering from a call's bytes as it is
//! ([`DetachedGatherer::gather_lane_range`]) gives what the gatherer attached to the same
//! bytes gives ([`DetachedGatherer::attach`]), at every SIMD level, lanes the kernels hand
//! back to the per-lane path included; bytes that do not fit are an error, not a read; a
//! gather stopped at its texels ([`DetachedGatherer::watch_lane_range`]) tells its watcher
//! what the watched gather does.

use tld4_textures::layout::{Layout, LayoutKind};
use tld4_textures::*;

/// A 16 x 8 texture of 4-byte texels (`format`: RGBA8, stored in bytes, or R32, in 4-byte
/// elements) laid out in pitch rows of 80 bytes, its bytes from `seed`.
fn texture(format: Format, seed: u32) -> (Layout, TextureDesc, Vec<u8>) {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format,
        width: 16,
        height: 8,
        layers: 1,
    };
    let pitch = 80u64;
    let layout = Layout {
        address: 0,
        texel_bytes: 4,
        layer_stride: pitch * 8,
        kind: LayoutKind::Pitch { pitch },
    };
    // (a byte pattern no two texels share, so a texel read from elsewhere shows)
    let bytes = (0..pitch * 8)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed) as u8 ^ (i >> 8) as u8)
        .collect();
    (layout, desc, bytes)
}

/// Queries of one warp: in range, on the edges, and far outside (past the kernels' 32-bit
/// coordinates: those lanes are computed by the per-lane path).
fn queries() -> LaneQueries {
    let mut q = LaneQueries::new();
    for k in 0..32 {
        let s = match k % 8 {
            6 => 3.0e7 + k as f32,
            7 => -4.5e8,
            _ => (k as f32 * 0.137) % 1.3 - 0.1,
        };
        let t = (k as f32 * 0.291) % 1.2 - 0.05;
        q.push(&GatherQuery::at(s, t)).unwrap();
    }
    q
}

fn detached(layout: &Layout, desc: TextureDesc, address: AddressMode) -> DetachedGatherer {
    let sampler = Sampler {
        address_u: address,
        address_v: address,
        ..Sampler::default()
    };
    let op = GatherOp::new(TextureKind::Tex2D, 0);
    DetachedGatherer::in_memory(
        layout,
        desc,
        Swizzle::IDENTITY,
        &sampler,
        &op,
        Precision::default(),
    )
    .unwrap()
    .expect("pitch rows of whole texels are read in place")
}

/// One case of the tests that run over address modes, formats, levels and lane ranges: the
/// detached gatherer, the bytes it reads, and what the case is.
struct Case<'a> {
    address: AddressMode,
    format: Format,
    level: SimdLevel,
    range: std::ops::Range<usize>,
    d: &'a DetachedGatherer,
    bytes: &'a [u8],
}

/// Runs `f` for every address mode of `addresses`, texture of `formats` (a format and the
/// seed of its bytes), supported SIMD level, and the lane ranges 0..32, 3..29 and 5..6.
fn for_each_case(
    addresses: &[AddressMode],
    formats: [(Format, u32); 2],
    mut f: impl FnMut(&Case<'_>),
) {
    for &address in addresses {
        for (format, seed) in formats {
            let (layout, desc, bytes) = texture(format, seed);
            let d = detached(&layout, desc, address);
            for level in SimdLevel::ALL.map(SimdLevel::supported) {
                for range in [0..32, 3..29, 5..6] {
                    f(&Case {
                        address,
                        format,
                        level,
                        range,
                        d: &d,
                        bytes: &bytes,
                    });
                }
            }
        }
    }
}

/// `got` and `want` agree on every lane of `range`; `what` names the case.
fn assert_lanes_equal(
    got: &LaneResults,
    want: &LaneResults,
    range: std::ops::Range<usize>,
    what: &str,
) {
    for lane in range {
        assert_eq!(got.get(lane), want.get(lane), "{what}: lane {lane}");
    }
}

#[test]
fn gathering_from_bytes_equals_the_attached_gatherer() {
    let q = queries();
    let addresses = [AddressMode::Repeat, AddressMode::ClampToEdge];
    for_each_case(
        &addresses,
        [(Format::Rgba8Unorm, 1), (Format::R32Uint, 77)],
        |c| {
            let (d, bytes, range) = (c.d, c.bytes, c.range.clone());
            assert!(d.fits(bytes));
            let mut want = LaneResults::new();
            d.attach(bytes)
                .unwrap()
                .gather_lane_range(c.level, &q, range.clone(), &mut want)
                .unwrap();
            let mut got = LaneResults::new();
            d.gather_lane_range(bytes, c.level, &q, range.clone(), &mut got)
                .unwrap();
            let what = format!("{:?} {:?} {:?}", c.address, c.format, c.level);
            assert_lanes_equal(&got, &want, range, &what);
        },
    );
}

#[test]
fn the_bytes_given_are_the_ones_read() {
    // Two calls' bytes, one gatherer: each call's results are its own bytes'.
    let q = queries();
    let (layout, desc, a) = texture(Format::Rgba8Unorm, 1);
    let (_, _, b) = texture(Format::Rgba8Unorm, 2);
    let d = detached(&layout, desc, AddressMode::Repeat);
    for level in SimdLevel::ALL.map(SimdLevel::supported) {
        let (mut from_a, mut from_b) = (LaneResults::new(), LaneResults::new());
        d.gather_lane_range(&a, level, &q, 0..32, &mut from_a)
            .unwrap();
        d.gather_lane_range(&b, level, &q, 0..32, &mut from_b)
            .unwrap();
        let mut want_b = LaneResults::new();
        d.attach(&b)
            .unwrap()
            .gather_lane_range(level, &q, 0..32, &mut want_b)
            .unwrap();
        let differ = (0..32).filter(|&k| from_a.get(k) != from_b.get(k)).count();
        assert!(differ > 16, "{level:?}: only {differ} lanes differ");
        // the far lanes (per-lane path) read the call's bytes too
        for k in (6..32).step_by(8).chain((7..32).step_by(8)) {
            assert_eq!(from_b.get(k), want_b.get(k), "{level:?} lane {k}");
        }
    }
}

#[test]
fn bytes_that_do_not_fit_are_an_error() {
    let q = queries();
    let (layout, desc, bytes) = texture(Format::R32Uint, 3);
    let d = detached(&layout, desc, AddressMode::ClampToEdge);
    // shorter than the texture, and (4-byte elements) misaligned
    let short = &bytes[..bytes.len() - 1];
    let mut padded = vec![0u8; bytes.len() + 8];
    let off = (1..4)
        .find(|o| !(padded.as_ptr() as usize + o).is_multiple_of(4))
        .unwrap();
    padded[off..off + bytes.len()].copy_from_slice(&bytes);
    let misaligned = &padded[off..off + bytes.len()];
    for wrong in [short, misaligned] {
        assert!(!d.fits(wrong));
        assert!(d.attach(wrong).is_none());
        let mut out = LaneResults::new();
        let e = d
            .gather_lane_range(wrong, simd_level(), &q, 0..32, &mut out)
            .unwrap_err();
        assert!(
            matches!(e, Error::Invalid(InvalidInput::Storage(_))),
            "{e:?}"
        );
    }
    // a lane range past the queries: the same error as the attached gatherer's
    let mut out = LaneResults::new();
    let e = d
        .gather_lane_range(&bytes, simd_level(), &q, 30..33, &mut out)
        .unwrap_err();
    assert!(
        matches!(e, Error::Invalid(InvalidInput::LaneRange { .. })),
        "{e:?}"
    );
}

/// One report of a kernel's texels, as told.
#[derive(Debug, PartialEq)]
struct Report {
    lanes: u32,
    index: [[u32; LANES]; 4],
    real: Option<[[bool; LANES]; 4]>,
    element: u32,
}

/// What a watcher was told: each report, and the lanes not reported.
#[derive(Default, Debug, PartialEq)]
struct Told {
    reports: Vec<Report>,
    unreported: u32,
}

impl TexelWatcher for Told {
    fn texels(&mut self, t: &KernelTexels<'_>) {
        self.reports.push(Report {
            lanes: t.lanes,
            index: *t.index,
            real: t.real.copied(),
            element: t.element,
        });
    }
    fn unreported(&mut self, lanes: u32) {
        self.unreported |= lanes;
    }
}

/// A gather stopped at its texels ([`DetachedGatherer::watch_lane_range`]) tells its watcher
/// what the whole watched gather tells it (border texels, lanes handed to the per-lane path
/// and lanes outside the range alike), at every level, and leaves nothing else to see.
#[test]
fn watching_without_results_tells_what_the_watched_gather_tells() {
    let q = queries();
    let addresses = [
        AddressMode::Repeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
    ];
    for_each_case(
        &addresses,
        [(Format::Rgba8Unorm, 1), (Format::R32Uint, 77)],
        |c| {
            let Case {
                address,
                format,
                level,
                ref range,
                d,
                bytes,
            } = *c;
            let mut want = Told::default();
            let mut out = LaneResults::new();
            d.gather_lane_range_watched(bytes, level, &q, range.clone(), &mut out, &mut want)
                .unwrap();
            let mut got = Told::default();
            d.watch_lane_range(bytes, level, &q, range.clone(), &mut got)
                .unwrap();
            assert_eq!(got, want, "{address:?} {format:?} {level:?} {range:?}");
            // every lane of the range is told of, reported or not
            let told = want
                .reports
                .iter()
                .fold(want.unreported, |m, r| m | r.lanes);
            let lanes = (range.start..range.end).fold(0u32, |m, k| m | 1 << k);
            assert_eq!(told & lanes, lanes, "{address:?} {format:?} {level:?}");
            if address == AddressMode::ClampToBorder
                && level == SimdLevel::Avx2
                && range.len() == 32
            {
                assert!(
                    want.reports.iter().any(|r| r.real.is_some()),
                    "border texels reported"
                );
            }
        },
    );
}

/// A gather finished from what a gather stopped at its texels found
/// ([`DetachedGatherer::gather_found`]) gives what the whole gather gives, at every level,
/// border texels and lanes left to the per-lane path included; a record that is not one of
/// those lanes (cleared, or of another range) runs the whole gather, with the same results.
#[test]
fn finishing_from_the_texels_found_gives_the_whole_gather() {
    let q = queries();
    let addresses = [
        AddressMode::Repeat,
        AddressMode::ClampToEdge,
        AddressMode::ClampToBorder,
    ];
    for_each_case(
        &addresses,
        [(Format::Rgba8Unorm, 3), (Format::R32Uint, 91)],
        |c| {
            let (d, bytes, level, range) = (c.d, c.bytes, c.level, c.range.clone());
            let mut want = LaneResults::new();
            d.gather_lane_range(bytes, level, &q, range.clone(), &mut want)
                .unwrap();
            let mut found = FoundTexels::default();
            d.watch_lane_range(bytes, level, &q, range.clone(), &mut found)
                .unwrap();
            let mut other = FoundTexels::default();
            d.watch_lane_range(bytes, level, &q, 0..range.end - 1, &mut other)
                .unwrap();
            let mut cleared = found.clone();
            cleared.clear();
            for (record, what) in [(&found, "found"), (&other, "other"), (&cleared, "cleared")] {
                let mut got = LaneResults::new();
                d.gather_found(bytes, level, &q, range.clone(), record, &mut got)
                    .unwrap();
                let what = format!("{:?} {:?} {level:?} {range:?} {what}", c.address, c.format);
                assert_lanes_equal(&got, &want, range.clone(), &what);
            }
        },
    );
}

/// A record's gather checks what the whole gather checks: bytes that do not fit, and a range
/// past the queries, are errors.
#[test]
fn finishing_checks_what_the_whole_gather_checks() {
    let q = queries();
    let (layout, desc, bytes) = texture(Format::R32Uint, 5);
    let d = detached(&layout, desc, AddressMode::Repeat);
    let level = SimdLevel::Avx2.supported();
    let mut found = FoundTexels::default();
    d.watch_lane_range(&bytes, level, &q, 0..32, &mut found)
        .unwrap();
    let mut out = LaneResults::new();
    assert!(d
        .gather_found(
            &bytes[..bytes.len() - 8],
            level,
            &q,
            0..32,
            &found,
            &mut out
        )
        .is_err());
    let mut few = LaneQueries::new();
    few.push(&GatherQuery::at(0.5, 0.5)).unwrap();
    assert!(d
        .gather_found(&bytes, level, &few, 0..32, &found, &mut out)
        .is_err());
}
