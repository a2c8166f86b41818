//! The JSON names of the texture unit's value types are the names it prints.

use tld4_textures::Format;

#[test]
fn format_names_are_the_json_names() {
    for f in Format::ALL {
        assert_eq!(serde_json::to_value(f).unwrap(), f.name().as_str(), "{f:?}");
    }
}
