//! Handles and the header and sampler pools they index (NAK: texture-header index in bits
//! 0-19, sampler index in bits 20-31).

use crate::error::{Error, InvalidInput};
use crate::gather::Gatherer;
use crate::op::{GatherOp, Precision};
use crate::sampler::Sampler;
use crate::texture::Texture;
use std::sync::atomic::{AtomicU64, Ordering};

/// A 32-bit bindless texture handle: header index in bits 0-19, sampler index in bits 20-31.
///
/// ```
/// use tld4_textures::Handle;
/// let h = Handle::new(5, 2).unwrap();
/// assert_eq!(h.0, 5 | 2 << 20);
/// assert_eq!((h.header_index(), h.sampler_index()), (5, 2));
/// assert!(Handle::new(1 << 20, 0).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Handle(pub u32);

impl Handle {
    /// Largest header index (20 bits).
    pub const MAX_HEADER: u32 = (1 << 20) - 1;
    /// Largest sampler index (12 bits).
    pub const MAX_SAMPLER: u32 = (1 << 12) - 1;

    /// Pack a header index and a sampler index.
    pub fn new(header: u32, sampler: u32) -> Result<Self, Error> {
        if header > Self::MAX_HEADER {
            return Err(InvalidInput::IndexTooLarge {
                what: "texture header",
                index: header,
                max: Self::MAX_HEADER,
            }
            .into());
        }
        if sampler > Self::MAX_SAMPLER {
            return Err(InvalidInput::IndexTooLarge {
                what: "sampler",
                index: sampler,
                max: Self::MAX_SAMPLER,
            }
            .into());
        }
        Ok(Handle(header | sampler << 20))
    }

    /// Bits 0-19.
    pub fn header_index(self) -> u32 {
        self.0 & Self::MAX_HEADER
    }

    /// Bits 20-31.
    pub fn sampler_index(self) -> u32 {
        self.0 >> 20
    }
}

/// Slots per page of a [`Slots`] table.
const PAGE: usize = 1024;

/// A sparse table of numbered slots: memory proportional to the slots filled (one 4 KiB
/// page of indices per 1024-slot range touched, plus the items), not to the largest index;
/// a lookup is two array indexings and an item read (O(1), no hashing).
#[derive(Clone)]
struct Slots<T> {
    /// Page `i >> 10` maps slot `i & 1023` to its item's position in `items` plus one (0:
    /// empty). Grown to the highest page used.
    pages: Vec<Option<Box<[u32; PAGE]>>>,
    /// The items, in the order they were first put.
    items: Vec<T>,
    /// One past the highest index filled (what `add` appends at).
    len: usize,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self {
            pages: Vec::new(),
            items: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Slots<T> {
    /// The item at `index`, if that slot is filled.
    #[inline]
    fn get(&self, index: u32) -> Option<&T> {
        let i = index as usize;
        let page = self.pages.get(i / PAGE)?.as_deref()?;
        let at = page[i % PAGE] as usize;
        // 0 is an empty slot: `checked_sub` turns it into None.
        self.items.get(at.checked_sub(1)?)
    }

    /// Puts `item` at `index`, replacing what was there.
    fn set(&mut self, index: u32, item: T) {
        let i = index as usize;
        if self.pages.len() <= i / PAGE {
            self.pages.resize_with(i / PAGE + 1, || None);
        }
        let page = self.pages[i / PAGE].get_or_insert_with(|| Box::new([0; PAGE]));
        match page[i % PAGE] as usize {
            0 => {
                self.items.push(item);
                // At most 2^32 - 1 items: every index is a u32, one item per index.
                page[i % PAGE] = self.items.len() as u32;
            }
            at => self.items[at - 1] = item,
        }
        self.len = self.len.max(i + 1);
    }

    /// How many slots are filled.
    fn filled(&self) -> usize {
        self.items.len()
    }

    /// The filled slots, in index order.
    fn iter(&self) -> impl Iterator<Item = (u32, &T)> + '_ {
        self.pages.iter().enumerate().flat_map(move |(p, page)| {
            page.iter().flat_map(move |page| {
                page.iter()
                    .enumerate()
                    .filter(|(_, &at)| at != 0)
                    .map(move |(k, &at)| ((p * PAGE + k) as u32, &self.items[at as usize - 1]))
            })
        })
    }
}

impl<T: core::fmt::Debug> core::fmt::Debug for Slots<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The texture-header pool and the sampler pool. Slots may be empty.
///
/// Memory grows with the textures and samplers held, not with the largest index: a texture
/// at header index 1_048_575 costs a page of 1024 indices (4 KiB) and a directory of 1024
/// pointers (8 KiB), not a million empty slots. Lookups are O(1) (two indexings).
///
/// ```
/// use tld4_textures::*;
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 1, height: 1, layers: 1 };
/// let mut pool = TexturePool::new();
/// pool.set_texture(Handle::MAX_HEADER, Texture::from_fields(desc, &[7])?)?;
/// pool.set_sampler(Handle::MAX_SAMPLER, Sampler::default())?;
/// let (t, _) = pool.resolve(Handle::new(Handle::MAX_HEADER, Handle::MAX_SAMPLER)?)?;
/// assert_eq!(t.width(), 1);
/// assert!(pool.texture(5).is_err());
/// assert_eq!(pool.texture_count(), 1);
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
pub struct TexturePool {
    headers: Slots<Texture>,
    samplers: Slots<Sampler>,
    /// [`TexturePool::generation`].
    generation: u64,
}

/// The next [`TexturePool::generation`] handed out, process-wide: every value goes to one
/// pool state only.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

/// A generation no pool state had before.
fn fresh_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, Ordering::Relaxed)
}

impl Default for TexturePool {
    fn default() -> Self {
        Self {
            headers: Slots::default(),
            samplers: Slots::default(),
            generation: fresh_generation(),
        }
    }
}

/// A clone is another pool: it gets its own generation (what was prepared from the original
/// borrows the original's textures, not the clone's).
impl Clone for TexturePool {
    fn clone(&self) -> Self {
        Self {
            headers: self.headers.clone(),
            samplers: self.samplers.clone(),
            generation: fresh_generation(),
        }
    }
}

impl TexturePool {
    /// Empty pools.
    pub fn new() -> Self {
        Self::default()
    }

    /// This pool's generation: a number no other pool and no earlier state of this pool had
    /// (process-wide), given at creation and on every change (a texture or sampler set or
    /// added, even the same one again), and to every clone. What was prepared from a pool
    /// at one generation (a resolved texture and sampler, a [`Gatherer`]'s constants) holds
    /// while the pool's generation is the same: a cache keyed by it needs no comparison of
    /// contents. A gatherer's borrows of the textures hold too: while a pool has the
    /// generation, its textures are the same objects on the heap, unchanged (every `&mut`
    /// method draws a new one; tld4-emu's `execute` keeps gatherers past their borrow on
    /// this promise, so a new `&mut` method must draw one as well).
    ///
    /// ```
    /// use tld4_textures::*;
    /// let mut pool = TexturePool::new();
    /// let g0 = pool.generation();
    /// pool.add_sampler(Sampler::default())?;
    /// assert_ne!(pool.generation(), g0);
    /// assert_ne!(pool.clone().generation(), pool.generation());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// How many texture headers the pool holds.
    pub fn texture_count(&self) -> usize {
        self.headers.filled()
    }

    /// How many samplers the pool holds.
    pub fn sampler_count(&self) -> usize {
        self.samplers.filled()
    }

    /// The texture headers held, in index order.
    pub fn textures(&self) -> impl Iterator<Item = (u32, &Texture)> + '_ {
        self.headers.iter()
    }

    /// The samplers held, in index order.
    pub fn samplers(&self) -> impl Iterator<Item = (u32, &Sampler)> + '_ {
        self.samplers.iter()
    }

    /// Append a texture header after the highest index used so far; returns its index.
    /// Past [`Handle::MAX_HEADER`] (no handle could name the index) it is an error, as for
    /// [`TexturePool::set_texture`].
    pub fn add_texture(&mut self, texture: Texture) -> Result<u32, Error> {
        let index = u32::try_from(self.headers.len).unwrap_or(u32::MAX);
        self.set_texture(index, texture)?;
        Ok(index)
    }

    /// Append a sampler after the highest index used so far; returns its index. Past
    /// [`Handle::MAX_SAMPLER`] it is an error, as for [`TexturePool::set_sampler`].
    pub fn add_sampler(&mut self, sampler: Sampler) -> Result<u32, Error> {
        let index = u32::try_from(self.samplers.len).unwrap_or(u32::MAX);
        self.set_sampler(index, sampler)?;
        Ok(index)
    }

    /// Put a texture header at `index` (replacing any there); the slots between stay empty
    /// and cost no memory.
    pub fn set_texture(&mut self, index: u32, texture: Texture) -> Result<(), Error> {
        if index > Handle::MAX_HEADER {
            return Err(InvalidInput::IndexTooLarge {
                what: "texture header",
                index,
                max: Handle::MAX_HEADER,
            }
            .into());
        }
        self.headers.set(index, texture);
        self.generation = fresh_generation();
        Ok(())
    }

    /// Put a sampler at `index` (replacing any there); the slots between stay empty.
    pub fn set_sampler(&mut self, index: u32, sampler: Sampler) -> Result<(), Error> {
        if index > Handle::MAX_SAMPLER {
            return Err(InvalidInput::IndexTooLarge {
                what: "sampler",
                index,
                max: Handle::MAX_SAMPLER,
            }
            .into());
        }
        self.samplers.set(index, sampler);
        self.generation = fresh_generation();
        Ok(())
    }

    /// The texture header at `index`.
    #[inline]
    pub fn texture(&self, index: u32) -> Result<&Texture, Error> {
        match self.headers.get(index) {
            Some(t) => Ok(t),
            None => Err(InvalidInput::BadHeaderIndex {
                index,
                len: self.headers.len,
                empty_slot: (index as usize) < self.headers.len,
            }
            .into()),
        }
    }

    /// The sampler at `index`.
    pub fn sampler(&self, index: u32) -> Result<&Sampler, Error> {
        match self.samplers.get(index) {
            Some(s) => Ok(s),
            None => Err(InvalidInput::BadSamplerIndex {
                index,
                len: self.samplers.len,
                empty_slot: (index as usize) < self.samplers.len,
            }
            .into()),
        }
    }

    /// Look up both halves of a handle; a bad index is an error naming it.
    pub fn resolve(&self, handle: Handle) -> Result<(&Texture, &Sampler), Error> {
        Ok((
            self.texture(handle.header_index())?,
            self.sampler(handle.sampler_index())?,
        ))
    }

    /// Resolve a handle and prepare a [`Gatherer`] for `op`: do this once per warp (or per
    /// distinct handle), then call [`Gatherer::gather`] per lane.
    pub fn gatherer(
        &self,
        handle: Handle,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Gatherer<'_>, Error> {
        let (t, s) = self.resolve(handle)?;
        Gatherer::new(t, s, op, precision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::texture::{TextureDesc, TextureKind};

    fn tex(v: u32) -> Texture {
        let desc = TextureDesc {
            kind: TextureKind::Tex2D,
            format: Format::R8Uint,
            width: 1,
            height: 1,
            layers: 1,
        };
        Texture::from_fields(desc, &[v]).unwrap()
    }

    fn value(t: &Texture) -> u32 {
        match t.data() {
            crate::storage::TexelData::U8(a) => a.iter().next().copied().unwrap() as u32,
            _ => unreachable!("R8 textures hold bytes"),
        }
    }

    #[test]
    fn sparse_slots_hold_far_apart_indices_and_replace_in_place() {
        let mut pool = TexturePool::new();
        pool.set_texture(Handle::MAX_HEADER, tex(1)).unwrap();
        pool.set_texture(3, tex(2)).unwrap();
        pool.set_texture(1024, tex(3)).unwrap();
        pool.set_texture(3, tex(4)).unwrap();
        assert_eq!(pool.texture_count(), 3);
        assert_eq!(value(pool.texture(Handle::MAX_HEADER).unwrap()), 1);
        assert_eq!(value(pool.texture(3).unwrap()), 4);
        assert_eq!(value(pool.texture(1024).unwrap()), 3);
        let order: Vec<u32> = pool.textures().map(|(i, _)| i).collect();
        assert_eq!(order, [3, 1024, Handle::MAX_HEADER]);
        // Empty slots below the highest index, and indices past it.
        for (index, empty) in [(0, true), (1023, true), (1025, true), (u32::MAX, false)] {
            match pool.texture(index) {
                Err(Error::Invalid(InvalidInput::BadHeaderIndex {
                    index: i,
                    len,
                    empty_slot,
                })) => {
                    assert_eq!((i, len, empty_slot), (index, 1 << 20, empty), "{index}")
                }
                other => panic!("{index}: {other:?}"),
            }
        }
        // add_* append after the highest index, and refuse what no handle could name.
        assert!(matches!(
            pool.add_texture(tex(5)),
            Err(Error::Invalid(InvalidInput::IndexTooLarge { index, .. })) if index == 1 << 20
        ));
        assert_eq!(pool.texture_count(), 3);
        assert_eq!(pool.add_sampler(Sampler::default()).unwrap(), 0);
        pool.set_sampler(Handle::MAX_SAMPLER - 1, Sampler::default())
            .unwrap();
        assert_eq!(
            pool.add_sampler(Sampler::default()).unwrap(),
            Handle::MAX_SAMPLER
        );
        assert!(matches!(
            pool.add_sampler(Sampler::default()),
            Err(Error::Invalid(InvalidInput::IndexTooLarge {
                index: 4096,
                ..
            }))
        ));
        assert_eq!(pool.sampler_count(), 3);
        assert!(pool
            .set_sampler(Handle::MAX_SAMPLER + 1, Sampler::default())
            .is_err());
        assert!(pool.set_texture(Handle::MAX_HEADER + 1, tex(0)).is_err());
        assert!(pool.sampler(1).is_err());
    }
}
