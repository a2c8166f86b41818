//! Compressed fat-binary entries: zstd frames and LZ4 blocks, decompressed in pure Rust
//! (`ruzstd`, `lz4_flex`), every size the header states checked before anything is allocated.

use crate::error::CubinError;
use crate::fatbin::{Compression, FatbinEntry};

/// The largest decompressed entry this crate allocates (1 GiB): twenty times the largest
/// sm_100 cubin seen in a shipped library (48.6 MB), and a bound on what a damaged or hostile
/// header can make it allocate. A limit of this crate, not of the format.
pub const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// LZ4's largest expansion: a block of `n` bytes decodes to at most 255 * n bytes (each
/// byte of a match length extension adds 255; the LZ4 block format description).
const LZ4_MAX_RATIO: u64 = 255;

/// Decompresses entries one after another into one buffer and with one zstd decoder, both
/// reused: a file's scan holds the largest entry's output and window once, instead of leaving
/// the allocator a freed buffer of every size it met.
#[derive(Default)]
pub struct Decompressor {
    zstd: Option<ruzstd::decoding::FrameDecoder>,
    out: Vec<u8>,
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressor")
            .field("buffer", &self.out.capacity())
            .finish()
    }
}

impl Decompressor {
    /// The payload of `entry`, decompressed (valid until the next call); the entry's own
    /// bytes if it is not compressed. Errors name the entry (`place`) and say which size is
    /// wrong.
    pub fn payload<'a>(
        &'a mut self,
        entry: &FatbinEntry<'a>,
        place: &str,
    ) -> Result<&'a [u8], CubinError> {
        let Some(method) = entry.compression() else {
            return Ok(entry.payload);
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
        if method == Compression::Lz4 && size > stored.saturating_mul(LZ4_MAX_RATIO) {
            return Err(bad(format!(
                "the header states {size} bytes from {stored} compressed bytes, more than LZ4 can expand to (255 times)"
            )));
        }
        if method == Compression::Zstd {
            // Reads the frame header only; nothing is decoded yet.
            let decoder = ruzstd::decoding::StreamingDecoder::new(entry.payload)
                .map_err(|e| bad(format!("damaged zstd frame header: {e}")))?;
            let content = decoder.decoder.content_size();
            // 0 where the frame does not state its size: the entry header's size bounds it.
            if content != 0 && content != size {
                return Err(bad(format!(
                    "the zstd frame states {content} bytes, the entry header {size}"
                )));
            }
        }
        // Every size checked: now the output, exactly the stated size.
        self.out.clear();
        self.out.resize(size as usize, 0);
        let n = match method {
            Compression::Lz4 => lz4_flex::block::decompress_into(entry.payload, &mut self.out)
                .map_err(|e| bad(format!("damaged LZ4 block: {e}")))?,
            // A megabyte of blocks at a time into the stated size: a frame that decodes to
            // more is refused (TargetTooSmall), never grown.
            Compression::Zstd => self
                .zstd
                .get_or_insert_with(ruzstd::decoding::FrameDecoder::new)
                .decode_all(entry.payload, &mut self.out)
                .map_err(|e| bad(format!("damaged zstd data: {e}")))?,
        };
        if n as u64 != size {
            return Err(bad(format!(
                "decompresses to {n} bytes, the header states {size}"
            )));
        }
        Ok(&self.out)
    }
}
