//! `tld4_check` from C's side: conformance verdicts on observed gathers (exact, allowed,
//! wrong), the structured fields, and bad input (docs/sources.md, Conformance verdicts).

use crate::common::{owned_pool, Texture};

use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_status::*;

fn query(s: f32, t: f32) -> tld4_check_query {
    tld4_check_query {
        coords: [s, t, 0.0, 0.0],
        ..Default::default()
    }
}

/// 4 x 1 RGBA8, red = 0, 85, 170, 255: at s = 0.375 - 1/4096 (u = 1.499) tld4 takes i0 = 1.
fn texture() -> Texture {
    Texture::rgba8(4, 1, |x, _| [85 * x, 0, 0, 255])
}

fn red(x: u32) -> u32 {
    (x as f32 / 255.0).to_bits()
}

#[test]
fn exact_allowed_and_wrong_with_their_fields() {
    let tex = texture();
    let pool = owned_pool(&tex, 3, 1, [2, 2]);
    let q = [query(0.375 - 1.0 / 4096.0, 0.5); 3];
    let observed = [
        [red(85), red(170), red(170), red(85)], // tld4's footprint
        [red(0), red(85), red(85), red(0)],     // i0 = 0: within the CTS's 7 sub-texel bits
        [red(170), red(85), red(85), red(0)],   // no footprint gives this
    ];
    let mut results = [tld4_check_result::default(); 3];
    let mut summary = tld4_check_summary::default();
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_check(
            pool,
            3,
            1,
            null(),
            q.as_ptr(),
            observed.as_ptr(),
            3,
            results.as_mut_ptr(),
            &mut summary,
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    assert_eq!(
        summary,
        tld4_check_summary {
            queries: 3,
            exact: 1,
            allowed: 1,
            wrong: 1
        }
    );
    assert_eq!(results[0].verdict, tld4_verdict::TLD4_VERDICT_EXACT as u32);
    assert_eq!(results[0].model, observed[0]);
    let a = results[1];
    assert_eq!(a.verdict, tld4_verdict::TLD4_VERDICT_ALLOWED as u32);
    assert_eq!(a.allowed_by, tld4_allowed_by::TLD4_ALLOWED_FOOTPRINT as u32);
    assert!(a.has_footprint);
    assert_eq!(
        (a.footprint_i0, a.model_footprint_i0, a.footprint_face),
        (0, 1, -1)
    );
    let w = results[2];
    assert_eq!(w.verdict, tld4_verdict::TLD4_VERDICT_WRONG as u32);
    assert_eq!(w.position, 0);
    assert!(w.difference > w.tolerance && w.tolerance > 0.0, "{w:?}");
    // Results and summary are optional.
    let st = unsafe {
        tld4_check(
            pool,
            3,
            1,
            null(),
            q.as_ptr(),
            observed.as_ptr(),
            3,
            null_mut(),
            null_mut(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK);
    unsafe { tld4_pool_free(pool) };
}

#[test]
fn bad_input_names_its_place_and_writes_nothing() {
    let tex = texture();
    let pool = owned_pool(&tex, 0, 0, [2, 2]);
    let observed = [[0u32; 4]];
    let mut summary = tld4_check_summary {
        queries: 99,
        ..Default::default()
    };
    let mut e = tld4_error::new();
    unsafe {
        let mut q = [query(0.5, 0.5)];
        q[0].offset_mode = 7;
        let st = tld4_check(
            pool,
            0,
            0,
            null(),
            q.as_ptr(),
            observed.as_ptr(),
            1,
            null_mut(),
            &mut summary,
            &mut e,
        );
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
        assert!(
            e.message().contains("queries[0].offset_mode = 7"),
            "{}",
            e.message()
        );
        assert_eq!(summary.queries, 99);
        q[0].offset_mode = tld4_offset_mode::TLD4_OFFSETS_ONE as u32;
        q[0].offsets[0] = [40, 0];
        let st = tld4_check(
            pool,
            0,
            0,
            null(),
            q.as_ptr(),
            observed.as_ptr(),
            1,
            null_mut(),
            null_mut(),
            &mut e,
        );
        assert_eq!(st, TLD4_ERR_INVALID_ARGUMENT);
        assert!(
            e.message().contains("queries[0].offsets: 40"),
            "{}",
            e.message()
        );
        let q = [query(0.5, 0.5)];
        assert_ne!(
            tld4_check(
                pool,
                5,
                0,
                null(),
                q.as_ptr(),
                observed.as_ptr(),
                1,
                null_mut(),
                null_mut(),
                &mut e
            ),
            TLD4_OK
        );
        assert!(e.message().starts_with("texture 5"), "{}", e.message());
        assert_eq!(
            tld4_check(
                null(),
                0,
                0,
                null(),
                q.as_ptr(),
                observed.as_ptr(),
                1,
                null_mut(),
                null_mut(),
                &mut e
            ),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "pool is NULL");
        assert_eq!(
            tld4_check(
                pool,
                0,
                0,
                null(),
                q.as_ptr(),
                null(),
                1,
                null_mut(),
                null_mut(),
                &mut e
            ),
            TLD4_ERR_NULL_POINTER
        );
        assert_eq!(e.message(), "observed is NULL");
        tld4_pool_free(pool);
    }
}
