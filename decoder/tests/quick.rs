use tld4_decoder::*;
#[test]
fn quick() {
    for (w, t) in [
        (0x0000000008000000_0000000000000d64u128, "@P0 TLD4.R.B.EF P0, R0, R0, R0, R0, INVALID0, 0x0 ;"),
        (0x89e1f0a20ff0418ff083f63, "@P3 TLD4.G.AOFFI R10, R8,     ???255, R24, UR4, 2D ;"),
        (0x89e1f0a20ff04ffff083d64, "@P3 TLD4.G.B.AOFFI R10, R8,     ???255, ???255, 2D ;"),
        (0x89e1f0a20ff04181c08ff63, "@!PT TLD4.G.AOFFI R10, R8, R28, R24, UR4, 2D ;"),
        (0x894100a20ff04181c083d64, "@P3 TLD4.G.B.AOFFI P2, R10, R8, R28, R24, 2D, 0x0 ;"),
    ] {
        let d = decode(w).unwrap();
        assert_eq!(d.text(), t);
        assert_eq!(d.encode(), w);
        let p = parse(t).unwrap();
        assert_eq!(p.text(), t);
    }
}
