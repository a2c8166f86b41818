//! Reading 128-bit instruction words from text and from raw files.

/// Text: the explain engine's reader (its instruction argument is read the same way).
pub use tld4_explain::words::parse_words;

/// Reads a raw file of 16-byte words, each little-endian with the low 64 bits first, as
/// `nvdisasm -b SM100` does. A trailing partial word is an error.
pub fn parse_binary(bytes: &[u8]) -> Result<Vec<u128>, String> {
    if !bytes.len().is_multiple_of(16) {
        return Err(format!(
            "the file holds {} bytes, not a whole number of 16-byte words",
            bytes.len()
        ));
    }
    Ok(bytes
        .chunks_exact(16)
        .map(|c| u128::from_le_bytes(c.try_into().expect("16 bytes")))
        .collect())
}

/// A word as 32 hex digits, high half first.
pub fn hex32(word: u128) -> String {
    format!("{word:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_files_are_little_endian_low_half_first() {
        let mut bytes = 0xd64u64.to_le_bytes().to_vec();
        bytes.extend(0x0800_0000u64.to_le_bytes());
        assert_eq!(
            parse_binary(&bytes).unwrap(),
            vec![0x0800_0000u128 << 64 | 0xd64]
        );
        assert!(parse_binary(&bytes[..15]).is_err());
    }
}
