//! The memory form of a scenario: textures in GPU memory, as a simulator holds them. A memory
//! image (mapped regions of bytes), the address of texture header 0 and of sampler 0; handle
//! header index `i` reads the 32 bytes at `texture_header_pool + 32 * i`, sampler index `j`
//! those at `sampler_pool + 32 * j`, each eight little-endian 32-bit words
//! (docs/sources.md, Descriptors).
//!
//! Here: the image ([`MemoryImage`]), the strict readers of its JSON spellings (addresses as
//! `"0x..."` strings, bytes as hex; strict as every scenario value is, a choice:
//! (docs/sources.md, Decisions)), and reading a texture out of the image into an owned
//! [`Texture`] (for `tld4 explain`, which traces and draws owned textures).

use ndarray::Array4;
use tld4_gpu_memory::{MemTexError, Memory, MemoryPool, MemoryTexels, SparseMemory, TextureHeader};
use tld4_textures::{
    Format, Handle, InvalidInput, StorageWidth, TexelData, TexelSource, Texture, MAX_TEXTURE_BYTES,
};

use crate::error::{err, ScenarioError};

/// Textures in GPU memory: the mapped regions and the two pool addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryImage {
    /// The mapped regions.
    pub memory: SparseMemory,
    /// Address of texture header 0.
    pub header_pool: u64,
    /// Address of sampler 0.
    pub sampler_pool: u64,
}

impl MemoryImage {
    /// The pools, for [`tld4_emu::Tld4Exec::execute_memory`].
    pub fn pool(&self) -> MemoryPool<'_> {
        MemoryPool::new(&self.memory, self.header_pool, self.sampler_pool)
    }

    /// Address of the texture header `handle` names (`None` past 2^64).
    pub fn header_address(&self, handle: Handle) -> Option<u64> {
        self.header_pool
            .checked_add(32 * handle.header_index() as u64)
    }

    /// Address of the sampler `handle` names (`None` past 2^64).
    pub fn sampler_address(&self, handle: Handle) -> Option<u64> {
        self.sampler_pool
            .checked_add(32 * handle.sampler_index() as u64)
    }
}

/// The forms of an address, for error messages.
pub const ADDRESS_FORMS: &str =
    "an address as a string \"0x\" followed by 1 to 16 hex digits (\"0x10000\")";

/// Reads an address: `"0x"` and 1 to 16 hex digits (64 bits), nothing else.
pub fn parse_address(text: &str, path: &str) -> Result<u64, ScenarioError> {
    let digits = text
        .strip_prefix("0x")
        .filter(|d| !d.is_empty() && d.len() <= 16 && d.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| {
            err(
                path,
                format!("`{text}` is not an address; expected {ADDRESS_FORMS}"),
            )
        })?;
    // 1..=16 hex digits always fit in 64 bits
    u64::from_str_radix(digits, 16).map_err(|e| err(path, e))
}

/// Reads bytes written as hex digits, two a byte, in memory order; spaces, tabs and newlines
/// may separate bytes (not the two digits of one byte). Errors name the character offset
/// (counted in characters from 0).
pub fn parse_hex(text: &str, path: &str) -> Result<Vec<u8>, ScenarioError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<(usize, u8)> = None;
    for (at, c) in text.chars().enumerate() {
        if c.is_ascii_whitespace() {
            if let Some((first, _)) = high {
                return Err(err(path, format!("character {at}: a space splits the byte whose first digit is character {first}; write a byte's two digits together")));
            }
            continue;
        }
        let v = c.to_digit(16).ok_or_else(|| {
            err(
                path,
                format!("character {at} (`{}`) is not a hex digit (0-9, a-f, A-F; spaces may separate bytes)", c.escape_default()),
            )
        })? as u8;
        match high.take() {
            None => high = Some((at, v)),
            Some((_, h)) => out.push(h << 4 | v),
        }
    }
    if let Some((first, _)) = high {
        return Err(err(
            path,
            format!("an odd number of hex digits: the digit at character {first} has no second digit (two digits a byte)"),
        ));
    }
    Ok(out)
}

/// Writes bytes as hex, a space after every 4 bytes (one little-endian word).
pub fn hex_text(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() * 9 / 4 + 1);
    // writing to a Vec cannot fail, and the digits and spaces are ASCII
    let _ = write_hex(&mut out, bytes);
    String::from_utf8(out).unwrap_or_default()
}

/// Streams bytes as [`hex_text`] writes them (a space after every 4 bytes) to `w`, a
/// chunk at a time.
pub fn write_hex(w: &mut dyn std::io::Write, bytes: &[u8]) -> std::io::Result<()> {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // 1024 words a chunk: 9 characters a word (the space before every word but the first)
    let mut buf = Vec::with_capacity(9 * 1024);
    for (c, chunk) in bytes.chunks(4096).enumerate() {
        buf.clear();
        for (k, word) in chunk.chunks(4).enumerate() {
            if c > 0 || k > 0 {
                buf.push(b' ');
            }
            for b in word {
                buf.extend_from_slice(&[DIGITS[(b >> 4) as usize], DIGITS[(b & 15) as usize]]);
            }
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

/// The texture a header describes, read out of `memory` into an owned [`Texture`] with the
/// header's swizzle (every texel of every layer is read). Errors: a texture too large for an
/// owned texture (invalid input of the texture unit), an unmapped texel.
pub fn read_texture(memory: &dyn Memory, header: &TextureHeader) -> Result<Texture, MemTexError> {
    let desc = header.desc();
    // the size (MAX_TEXTURE_BYTES) is checked before anything is allocated; the other
    // checks of an owned texture follow in `Texture::from_data`
    if desc.bytes() > MAX_TEXTURE_BYTES {
        return Err(MemTexError::Texture(
            InvalidInput::BadSize {
                width: desc.width,
                height: desc.height,
                layers: desc.layers,
                why: "the texels would take more than MAX_TEXTURE_BYTES (1 GiB)",
            }
            .into(),
        ));
    }
    let texels = MemoryTexels::new(memory, header)?;
    let f: Format = header.format;
    let shape = (
        desc.storage_layers(),
        desc.height as usize,
        desc.width as usize,
        f.words(),
    );
    let mut words = Vec::with_capacity(shape.0 * shape.1 * shape.2 * shape.3);
    for layer in 0..shape.0 as u32 {
        for y in 0..desc.height {
            for x in 0..desc.width {
                for e in 0..shape.3 {
                    words.push(texels.element(layer, x, y, e)?);
                }
            }
        }
    }
    let bad = |_| {
        MemTexError::Texture(tld4_textures::Error::from(InvalidInput::TexelCount {
            kind: desc.kind,
            format: f,
            expected: shape.0 * shape.1 * shape.2 * shape.3,
            got: 0,
        }))
    };
    let data = match f.storage() {
        StorageWidth::U8 => TexelData::U8(
            Array4::from_shape_vec(shape, words.iter().map(|&v| v as u8).collect()).map_err(bad)?,
        ),
        StorageWidth::U16 => TexelData::U16(
            Array4::from_shape_vec(shape, words.iter().map(|&v| v as u16).collect())
                .map_err(bad)?,
        ),
        StorageWidth::U32 => TexelData::U32(Array4::from_shape_vec(shape, words).map_err(bad)?),
    };
    Ok(Texture::from_data(desc, data)?.with_swizzle(header.swizzle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_0x_strings_of_64_bits() {
        assert_eq!(parse_address("0x10000", "a"), Ok(0x10000));
        assert_eq!(parse_address("0xffffffffffffffff", "a"), Ok(u64::MAX));
        for bad in [
            "",
            "0x",
            "10000",
            "0x1_0",
            "0x10000000000000000",
            "0X10",
            " 0x1",
            "-0x1",
        ] {
            let e = parse_address(bad, "memory[0].address").unwrap_err();
            assert_eq!(e.path, "memory[0].address", "{bad}");
            assert!(e.message.contains("0x"), "{bad}: {e}");
        }
    }

    #[test]
    fn hex_reads_bytes_in_order_and_names_the_bad_character() {
        assert_eq!(
            parse_hex("00ff 1A2b\n7f", "h"),
            Ok(vec![0, 0xff, 0x1a, 0x2b, 0x7f])
        );
        assert_eq!(parse_hex("", "h"), Ok(vec![]));
        let e = parse_hex("00fg", "memory[1].hex").unwrap_err();
        assert_eq!(e.path, "memory[1].hex");
        assert!(
            e.message.contains("character 3") && e.message.contains("`g`"),
            "{e}"
        );
        let e = parse_hex("00f", "h").unwrap_err();
        assert!(
            e.message.contains("odd") && e.message.contains("character 2"),
            "{e}"
        );
        let e = parse_hex("0 0", "h").unwrap_err();
        assert!(e.message.contains("character 1"), "{e}");
        let e = parse_hex("00\u{e9}0", "h").unwrap_err();
        assert!(e.message.contains("character 2"), "{e}");
    }

    #[test]
    fn hex_text_reads_back() {
        let bytes: Vec<u8> = (0..=255).collect();
        let t = hex_text(&bytes);
        assert!(t.starts_with("00010203 04050607 "), "{t}");
        assert_eq!(parse_hex(&t, "h").unwrap(), bytes);
    }

    #[test]
    fn streamed_hex_is_the_text_byte_by_byte_across_chunks() {
        for len in [0usize, 1, 3, 4, 5, 4095, 4096, 4097, 8192 + 6] {
            let bytes: Vec<u8> = (0..len).map(|k| (k * 37 % 251) as u8).collect();
            let mut want = String::new();
            for (k, b) in bytes.iter().enumerate() {
                if k > 0 && k % 4 == 0 {
                    want.push(' ');
                }
                want.push_str(&format!("{b:02x}"));
            }
            assert_eq!(hex_text(&bytes), want, "{len}");
            assert_eq!(parse_hex(&want, "h").unwrap(), bytes);
        }
    }
}
