//! What the scenario tests share.

use tld4_scenario::load;

/// `example` with `from` replaced by `to` fails at JSON path `path`, with `why` in the
/// message.
pub fn refused_in(example: &str, from: &str, to: &str, path: &str, why: &str) {
    assert!(example.contains(from), "{from}");
    let text = example.replacen(from, to, 1);
    match load(&text) {
        Ok(_) => panic!("accepted {to}"),
        Err(e) => {
            assert_eq!(e.path, path, "{to}: {e}");
            assert!(e.message.contains(why), "{to}: expected `{why}` in {e}");
        }
    }
}
