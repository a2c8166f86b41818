//! One call at a time over an object Python code shares between calls (a `Warp`'s arrays,
//! a callback `Memory`'s kept bytes): a call from another thread waits its turn without
//! the GIL; a call from the thread that holds the turn (a read callback calling tld4 again
//! with the object its own call is using) is refused with a `RuntimeError`, never a wait
//! that cannot end or a panic (docs/sources.md, Decisions).

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

thread_local! {
    /// A byte whose address names the thread while it lives.
    static THREAD: u8 = const { 0 };
}

/// The calling thread's token: non-zero, and different from every other live thread's.
fn this_thread() -> usize {
    THREAD.with(|t| t as *const u8 as usize)
}

/// A `T` used by one call at a time ([`Turns::take`]).
pub struct Turns<T> {
    /// The token of the thread holding the turn, 0 when none does.
    holder: AtomicUsize,
    value: Mutex<T>,
}

/// A turn taken: the value, for as long as it lives.
pub struct Turn<'a, T> {
    holder: &'a AtomicUsize,
    guard: MutexGuard<'a, T>,
}

impl<T> Turns<T> {
    /// Nobody's turn yet.
    pub fn new(value: T) -> Self {
        Turns {
            holder: AtomicUsize::new(0),
            value: Mutex::new(value),
        }
    }

    /// Takes the turn: waits (without the GIL) while another thread holds it; a
    /// `RuntimeError` naming `what` when this thread holds it already.
    pub fn take(&self, py: Python<'_>, what: &str) -> PyResult<Turn<'_, T>> {
        let me = this_thread();
        loop {
            let guard = match self.value.try_lock() {
                Ok(g) => g,
                // (a panic inside a turn is a bug caught as pyo3's PanicException; the value
                // stays whole: every change of it is a plain store)
                Err(TryLockError::Poisoned(p)) => p.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    if self.holder.load(Ordering::Acquire) == me {
                        return Err(PyRuntimeError::new_err(format!(
                            "{what} is in use by a call on this thread: a read callback may \
                             not call tld4 with the memory or warp its own call is using"
                        )));
                    }
                    py.detach(std::thread::yield_now);
                    continue;
                }
            };
            self.holder.store(me, Ordering::Release);
            return Ok(Turn {
                holder: &self.holder,
                guard,
            });
        }
    }
}

impl<T> Turns<T> {
    /// The value, where no call holds it (for the garbage collector, which may not wait).
    pub fn peek(&self) -> Option<MutexGuard<'_, T>> {
        match self.value.try_lock() {
            Ok(g) => Some(g),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

impl<T> Drop for Turn<'_, T> {
    fn drop(&mut self) {
        // (before the guard unlocks: a thread that then finds it locked waits)
        self.holder.store(0, Ordering::Release);
    }
}

impl<T> Deref for Turn<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Turn<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}
