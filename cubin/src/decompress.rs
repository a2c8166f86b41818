//! Compressed fat-binary entries: zstd frames (libzstd through the `zstd` crate) and LZ4
//! blocks (`lz4_flex`), every size the header states checked before anything is allocated,
//! each decoded straight into an output of exactly the stated size: what a scan holds is the
//! largest entry, with no decoder window beside it (docs/sources.md, Fat binaries).

use crate::error::CubinError;
use crate::fatbin::{Compression, FatbinEntry};

/// The largest decompressed entry this crate allocates (1 GiB): twenty times the largest
/// sm_100 cubin seen in a shipped library (48.6 MB), and a bound on what a damaged or hostile
/// header can make it allocate. A limit of this crate, not of the format.
pub const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// LZ4's largest expansion: a block of `n` bytes decodes to at most 255 * n bytes (each
/// byte of a match length extension adds 255; the LZ4 block format description).
const LZ4_MAX_RATIO: u64 = 255;

/// Decompresses entries one after another into one buffer and with one zstd context, both
/// reused: a file's scan holds the largest entry's output once, instead of leaving the
/// allocator a freed buffer of every size it met. zstd decodes single-pass
/// (`ZSTD_decompressDCtx`): the output buffer is the frame's window, so no second copy of up
/// to the window's size is kept (a streaming decoder keeps one).
#[derive(Default)]
pub struct Decompressor {
    zstd: Option<zstd::bulk::Decompressor<'static>>,
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
            // Read in place: the buffer of an earlier compressed entry is let go first, so
            // that it and this entry's mapped pages are never resident together (peak
            // memory: the largest entry, not the largest compressed one plus another).
            self.out = Vec::new();
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
            match zstd::zstd_safe::get_frame_content_size(entry.payload) {
                Err(_) => return Err(bad("damaged zstd frame header".into())),
                // The frame need not state its size: the entry header's size bounds it.
                Ok(None) => {}
                Ok(Some(content)) if content != size => {
                    return Err(bad(format!(
                        "the zstd frame states {content} bytes, the entry header {size}"
                    )))
                }
                Ok(Some(_)) => {}
            }
        }
        // Every size checked: now the output, exactly the stated size (an allocation that
        // fails is an error, not an abort).
        self.out.clear();
        self.out
            .try_reserve_exact(size as usize)
            .map_err(|e| bad(format!("cannot allocate {size} bytes: {e}")))?;
        let n = match method {
            Compression::Lz4 => {
                self.out.resize(size as usize, 0);
                lz4_flex::block::decompress_into(entry.payload, &mut self.out)
                    .map_err(|e| bad(format!("damaged LZ4 block: {e}")))?
            }
            // Into the buffer's capacity (the stated size, or a larger one kept from an
            // earlier entry): a frame that decodes to more than that is refused ("destination
            // buffer is too small"), never grown; one that decodes to another size than
            // stated is refused below.
            Compression::Zstd => {
                let zstd = match &mut self.zstd {
                    Some(z) => z,
                    None => self.zstd.insert(
                        zstd::bulk::Decompressor::new()
                            .map_err(|e| bad(format!("cannot make a zstd context: {e}")))?,
                    ),
                };
                zstd.decompress_to_buffer(entry.payload, &mut self.out)
                    .map_err(|e| bad(format!("damaged zstd data: {e}")))?
            }
        };
        if n as u64 != size {
            return Err(bad(format!(
                "decompresses to {n} bytes, the header states {size}"
            )));
        }
        Ok(&self.out)
    }
}
