//! What a [`CallbackMemory`](super::CallbackMemory) keeps in place: ranges fetched whole
//! (a texture's bytes each, [`Views`]) and descriptors ([`Descriptors`]); and, for the memory
//! of a one-shot call, the box of them kept by the thread for its next call
//! ([`Views::for_one_warp`], [`Views::recycle`]).
//!
//! A one-shot call makes its memory, fetches a texture of up to
//! [`ONE_WARP_MAX_VIEW`](super::ONE_WARP_MAX_VIEW) bytes and drops both. Made afresh each
//! call, the box came from the allocator and the texture's buffer too, zeroed before the
//! read function wrote every byte of it again: for a 16 KiB texture more time than the
//! warp's gather (docs/benchmarks.md, "A one-shot callback's views kept by the thread").
//! Kept by the thread, the box comes back empty (no view, no descriptor) with the buffers
//! of its last views, which the next fetches take: a buffer taken so holds an earlier
//! view's bytes (zeros past its last length) until the read function fills it whole (its
//! contract, [`ReadBytes`](super::ReadBytes)); a fetch that fails keeps nothing, so those
//! bytes are never read as a texture's.

use std::cell::{Cell, OnceCell, RefCell};

use super::{overlaps, ONE_WARP_MAX_VIEW};

/// Empties the slots whose bytes (kept from the address beside them) overlap the `len`
/// bytes at `addr`.
fn drop_overlapping<B: AsRef<[u8]>>(slots: &mut [OnceCell<(u64, B)>], addr: u64, len: u64) {
    for cell in slots {
        if let Some((at, bytes)) = cell.get() {
            if overlaps(*at, bytes.as_ref().len() as u64, addr, len) {
                cell.take();
            }
        }
    }
}

/// Empties every slot.
fn drop_all<T>(slots: &mut [OnceCell<T>]) {
    for cell in slots {
        cell.take();
    }
}

/// Descriptors a callback memory keeps in place.
pub(super) const DESCRIPTORS: usize = 8;

/// Descriptors kept in place ([`Descriptors::view`]): a descriptor's address and its 32
/// bytes each, kept as long as the memory or until invalidated.
#[derive(Default)]
pub(super) struct Descriptors {
    kept: [OnceCell<(u64, [u8; 32])>; DESCRIPTORS],
}

impl Descriptors {
    /// The 32 bytes at `addr`: kept, or read with `fetch` (true when it read) into a free
    /// slot; None where every slot holds another descriptor or `fetch` fails.
    #[inline]
    pub(super) fn view(
        &self,
        addr: u64,
        fetch: impl FnOnce(&mut [u8; 32]) -> bool,
    ) -> Option<&[u8; 32]> {
        for cell in &self.kept {
            match cell.get() {
                Some((at, bytes)) if *at == addr => return Some(bytes),
                Some(_) => {}
                None => {
                    let mut bytes = [0u8; 32];
                    if !fetch(&mut bytes) {
                        return None;
                    }
                    // (a slot filled meanwhile, by a read function that reads this memory
                    // too, keeps what it holds: then None)
                    let got = cell.get_or_init(|| (addr, bytes));
                    return (got.0 == addr).then_some(&got.1);
                }
            }
        }
        None
    }

    /// When every slot is taken, drops them all (the descriptors in use are read again on
    /// the next call).
    pub(super) fn make_room(&mut self) {
        if self.kept.iter().all(|c| c.get().is_some()) {
            drop_all(&mut self.kept);
        }
    }
}

/// Views a callback memory keeps (a texture's bytes each: one a binding's handle, or a
/// call's).
pub(super) const VIEWS: usize = 4;

/// Ranges a callback memory fetched whole ([`Views::view`]), kept as long as the memory or
/// until invalidated; `used[i]` is when slot `i` was last asked for (a count of the views
/// asked for, `clock`); the descriptors it keeps in place (here, behind the memory's
/// one box of views: a memory made a call stays small); and the buffers of a recycled
/// box's views, for its next fetches (`spare`: see the module's text).
pub(super) struct Views {
    kept: [OnceCell<(u64, Vec<u8>)>; VIEWS],
    used: [Cell<u64>; VIEWS],
    clock: Cell<u64>,
    pub(super) descriptors: Descriptors,
    spare: RefCell<Vec<Vec<u8>>>,
}

thread_local! {
    /// The box of views the thread's last one-shot memory left ([`Views::recycle`]).
    static SPARE: Cell<Option<Box<Views>>> = const { Cell::new(None) };
}

impl Views {
    /// None kept.
    pub(super) fn new() -> Self {
        Views {
            kept: Default::default(),
            used: Default::default(),
            clock: Cell::new(0),
            descriptors: Descriptors::default(),
            spare: RefCell::new(Vec::new()),
        }
    }

    /// None kept, for a one-shot memory: the box the thread's last one-shot memory left
    /// (with its buffers), else a new one.
    pub(super) fn for_one_warp() -> Box<Self> {
        SPARE
            .try_with(Cell::take)
            .ok()
            .flatten()
            .unwrap_or_else(|| Box::new(Views::new()))
    }

    /// Empties this one-shot memory's box (no view, no descriptor kept), keeping the
    /// buffers of its views of at most [`ONE_WARP_MAX_VIEW`] bytes for its next fetches, and
    /// leaves it to the thread's next [`Views::for_one_warp`].
    pub(super) fn recycle(mut self: Box<Self>) {
        let spare = self.spare.get_mut();
        for cell in &mut self.kept {
            if let Some((_, bytes)) = cell.take() {
                if bytes.capacity() as u64 <= ONE_WARP_MAX_VIEW && spare.len() < VIEWS {
                    spare.push(bytes);
                }
            }
        }
        // (the views taken above: the descriptors go)
        self.clear();
        self.clock.set(0);
        for used in &self.used {
            used.set(0);
        }
        // (a thread ending: the box is freed)
        let _ = SPARE.try_with(|s| s.set(Some(self)));
    }

    /// Marks slot `k` used now.
    fn touch(&self, k: usize) {
        let now = self.clock.get() + 1;
        self.clock.set(now);
        self.used[k].set(now);
    }

    /// How many views are kept.
    pub(super) fn count(&self) -> usize {
        self.kept.iter().filter(|c| c.get().is_some()).count()
    }

    /// Drops the views and descriptors overlapping the `len` bytes at `addr`.
    pub(super) fn invalidate(&mut self, addr: u64, len: u64) {
        drop_overlapping(&mut self.kept, addr, len);
        drop_overlapping(&mut self.descriptors.kept, addr, len);
    }

    /// Drops every view and descriptor.
    pub(super) fn clear(&mut self) {
        drop_all(&mut self.kept);
        drop_all(&mut self.descriptors.kept);
    }

    /// When every slot is taken, drops the least recently used view.
    pub(super) fn make_room(&mut self) {
        if self.kept.iter().all(|c| c.get().is_some()) {
            let oldest = (0..VIEWS).min_by_key(|&k| self.used[k].get());
            if let Some(k) = oldest {
                self.kept[k].take();
            }
        }
    }

    /// A buffer of `len` bytes: a spare one with room for them (holding an earlier view's
    /// bytes, zeros past its last length), else a new zeroed one.
    fn buffer(&self, len: usize) -> Vec<u8> {
        let kept = self.spare.try_borrow_mut().ok().and_then(|mut spare| {
            let k = spare.iter().position(|b| b.capacity() >= len)?;
            Some(spare.swap_remove(k))
        });
        match kept {
            Some(mut bytes) => {
                bytes.truncate(len);
                bytes.resize(len, 0);
                bytes
            }
            None => vec![0; len],
        }
    }

    /// The `len` bytes at `addr` as one slice: kept, or fetched whole with `fetch` (true
    /// when it read) into a free slot; None where `fetch` refuses them, they are larger than
    /// `max` bytes, or every slot holds another range (the texture unit then reads texel by
    /// texel).
    pub(super) fn view(
        &self,
        addr: u64,
        len: u64,
        max: u64,
        fetch: impl FnOnce(u64, &mut [u8]) -> bool,
    ) -> Option<&[u8]> {
        let kept = |(at, bytes): &(u64, Vec<u8>)| *at == addr && bytes.len() as u64 == len;
        if let Some(k) = (0..VIEWS).find(|&k| self.kept[k].get().is_some_and(kept)) {
            self.touch(k);
            return self.kept[k].get().map(|(_, bytes)| &bytes[..]);
        }
        let k = (0..VIEWS).find(|&k| self.kept[k].get().is_none())?;
        if len > max {
            return None;
        }
        // (`fetch` writes every byte: a spare buffer is not zeroed first)
        let mut bytes = self.buffer(len as usize);
        if !fetch(addr, &mut bytes) {
            return None;
        }
        self.touch(k);
        // (a slot filled meanwhile, by a read function that reads this memory too, keeps
        // what it holds: then None)
        let got = self.kept[k].get_or_init(|| (addr, bytes));
        kept(got).then_some(&got.1[..])
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::recording;
    use super::*;

    #[test]
    fn views_are_fetched_once_and_refused_ones_are_not_kept() {
        let memory: Vec<u8> = (0..4096).map(|i| i as u8).collect();
        let asked = RefCell::new(Vec::new());
        let fetch = recording(&memory, &asked);
        let views = Views::new();
        let max = super::super::MAX_VIEW;
        assert_eq!(
            views.view(0x100, 4, max, &fetch),
            Some(&memory[0x100..0x104])
        );
        assert_eq!(
            views.view(0x100, 4, max, &fetch),
            Some(&memory[0x100..0x104])
        );
        assert_eq!(views.view(0xffe, 4, max, &fetch), None); // refused: not kept
        for k in 1..4u64 {
            assert!(views.view(k * 0x200, 8, max, &fetch).is_some());
        }
        assert_eq!(views.view(0x900, 8, max, &fetch), None); // every slot taken
        assert_eq!(
            *asked.borrow(),
            [(0x100, 4), (0xffe, 4), (0x200, 8), (0x400, 8), (0x600, 8)]
        );
    }

    #[test]
    fn a_recycled_box_comes_back_empty_with_its_buffers_and_never_shows_their_bytes() {
        // (this test's thread starts with no box kept)
        let memory: Vec<u8> = (0..8192).map(|i| (i * 3) as u8).collect();
        let asked = RefCell::new(Vec::new());
        let fetch = recording(&memory, &asked);
        let max = ONE_WARP_MAX_VIEW;
        let views = Views::for_one_warp();
        let first = views.view(0, 4096, max, &fetch).map(<[u8]>::as_ptr);
        assert!(views.descriptors.view(0x40, |d| fetch(0x40, d)).is_some());
        let at = &*views as *const Views;
        views.recycle();
        let again = Views::for_one_warp();
        assert_eq!(&*again as *const Views, at, "the same box");
        assert_eq!(again.count(), 0, "no view kept");
        // no descriptor kept: read again
        asked.borrow_mut().clear();
        assert!(again.descriptors.view(0x40, |d| fetch(0x40, d)).is_some());
        assert_eq!(*asked.borrow(), [(0x40, 32)]);
        // a shorter view takes the buffer, fetched anew: the new range's bytes
        assert_eq!(again.view(100, 2000, max, &fetch), Some(&memory[100..2100]));
        assert_eq!(
            again.view(100, 2000, max, &fetch).map(<[u8]>::as_ptr),
            first
        );
        // a fetch that fails keeps nothing; the range is asked for again
        asked.borrow_mut().clear();
        assert_eq!(again.view(8000, 1000, max, &fetch), None);
        assert_eq!(again.count(), 1);
        // a view larger than the buffers: a new zeroed one, filled
        assert_eq!(again.view(0, 8192, max, &fetch), Some(&memory[..]));
        assert_eq!(*asked.borrow(), [(8000, 1000), (0, 8192)]);
    }

    #[test]
    fn only_buffers_of_one_shot_sizes_are_kept() {
        let memory = vec![5u8; ONE_WARP_MAX_VIEW as usize + 64];
        let asked = RefCell::new(Vec::new());
        let fetch = recording(&memory, &asked);
        let views = Views::for_one_warp();
        let big = ONE_WARP_MAX_VIEW + 32;
        assert!(views.view(0, big, super::super::MAX_VIEW, &fetch).is_some());
        assert!(views.view(0, 64, ONE_WARP_MAX_VIEW, &fetch).is_some());
        views.recycle();
        let again = Views::for_one_warp();
        let spare = again.spare.borrow();
        assert_eq!(spare.len(), 1);
        assert!(spare[0].capacity() as u64 <= ONE_WARP_MAX_VIEW);
    }
}
