//! Compressed fat-binary entries: zstd frames and LZ4 blocks, decompressed in pure Rust
//! (`ruzstd`, `lz4_flex`), every size the header states checked before anything is allocated.

use std::borrow::Cow;

use crate::error::CubinError;
use crate::fatbin::{Compression, FatbinEntry};

/// The largest decompressed entry this crate allocates (1 GiB): twenty times the largest
/// sm_100 cubin seen in a shipped library (48.6 MB), and a bound on what a damaged or hostile
/// header can make it allocate. A limit of this crate, not of the format.
pub const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// LZ4's largest expansion: a block of `n` bytes decodes to at most 255 * n bytes (each
/// byte of a match length extension adds 255; the LZ4 block format description).
const LZ4_MAX_RATIO: u64 = 255;

/// The payload of `entry`, decompressed; the entry's own bytes if it is not compressed.
/// Errors name the entry (`place`) and say which size is wrong.
pub fn payload<'data>(
    entry: &FatbinEntry<'data>,
    place: &str,
) -> Result<Cow<'data, [u8]>, CubinError> {
    let Some(method) = entry.compression() else {
        return Ok(Cow::Borrowed(entry.payload));
    };
    let bad = |what: String| CubinError::Decompress {
        place: place.to_string(),
        method: method.name(),
        what,
    };
    let size = entry.uncompressed_size;
    if size == 0 {
        return Err(bad("the header states an uncompressed size of 0".into()));
    }
    if size > MAX_ENTRY_BYTES {
        return Err(bad(format!(
            "the header states an uncompressed size of {size} bytes, above the {MAX_ENTRY_BYTES} this reader allocates"
        )));
    }
    let stored = entry.payload.len() as u64;
    let out = match method {
        Compression::Lz4 => {
            if size > stored.saturating_mul(LZ4_MAX_RATIO) {
                return Err(bad(format!(
                    "the header states {size} bytes from {stored} compressed bytes, more than LZ4 can expand to (255 times)"
                )));
            }
            let mut out = vec![0u8; size as usize];
            let n = lz4_flex::block::decompress_into(entry.payload, &mut out)
                .map_err(|e| bad(format!("damaged LZ4 block: {e}")))?;
            if n as u64 != size {
                return Err(bad(format!(
                    "decompresses to {n} bytes, the header states {size}"
                )));
            }
            out
        }
        Compression::Zstd => {
            // Reads the frame header only; nothing is decoded yet.
            let decoder = ruzstd::decoding::StreamingDecoder::new(entry.payload)
                .map_err(|e| bad(format!("damaged zstd frame header: {e}")))?;
            let content = decoder.decoder.content_size();
            // 0 where the frame does not state its size: the entry header's size then bounds it.
            if content != 0 && content != size {
                return Err(bad(format!(
                    "the zstd frame states {content} bytes, the entry header {size}"
                )));
            }
            // Decoded into exactly the stated size, a megabyte of blocks at a time: a frame
            // that decodes to more is refused (TargetTooSmall), never grown.
            drop(decoder);
            let mut out = vec![0u8; size as usize];
            let n = ruzstd::decoding::FrameDecoder::new()
                .decode_all(entry.payload, &mut out)
                .map_err(|e| bad(format!("damaged zstd data: {e}")))?;
            if n as u64 != size {
                return Err(bad(format!(
                    "decompresses to {n} bytes, the header states {size}"
                )));
            }
            out
        }
    };
    Ok(Cow::Owned(out))
}
