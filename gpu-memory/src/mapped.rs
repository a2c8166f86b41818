//! Bytes mapped at a GPU address: where a flat memory (`FlatMemory`, and a flat range held
//! elsewhere: `memory::read_mapped`, `view_mapped`), a sparse memory's region and a ranges
//! memory's range hand out a view or read (one rule for all).

/// The `len` bytes at `addr` of `bytes` mapped at `base`, where they hold them all.
#[inline(always)]
pub(crate) fn bytes_at(base: u64, bytes: &[u8], addr: u64, len: u64) -> Option<&[u8]> {
    let at = usize::try_from(addr.checked_sub(base)?).ok()?;
    bytes.get(at..at.checked_add(usize::try_from(len).ok()?)?)
}
