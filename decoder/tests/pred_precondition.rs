//! A hand-built `Tld4` holding a predicate number above 7 is refused, never wrapped.

use tld4_decoder::{parse, EncodeError, Pred};

#[test]
fn a_predicate_above_pt_is_refused_by_try_encode() {
    let good = parse("@P3 TLD4.R P2, R10, R8, R4, UR4, 2D ;").expect("parses");
    assert!(good.try_encode().is_ok());
    for (guard, dst) in [(Pred(200), good.pred_dst), (good.guard_pred, Pred(8))] {
        let mut bad = good;
        bad.guard_pred = guard;
        bad.pred_dst = dst;
        let e = bad.try_encode().unwrap_err();
        assert!(matches!(e, EncodeError::TooWide { .. }), "{e:?}");
    }
    assert_eq!(Pred::new(7), Some(Pred::PT));
    assert_eq!(Pred::new(8), None);
}
