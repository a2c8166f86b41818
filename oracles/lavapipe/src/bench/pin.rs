//! Where `tld4-lavapipe bench` runs: both sides pinned to one CPU, so they are timed on the
//! same one.

use anyhow::{Context, Result};

/// Where the bench runs ([`super::bench`]'s `pin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pin {
    /// The CPU the process is on when the bench starts.
    Auto,
    /// This CPU.
    Cpu(usize),
    /// Not pinned.
    None,
}

impl std::str::FromStr for Pin {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(Pin::Auto),
            "none" => Ok(Pin::None),
            n => n
                .parse()
                .map(Pin::Cpu)
                .map_err(|_| format!("`{n}`: expected auto, none or a CPU number")),
        }
    }
}

/// Pins the calling thread (and the threads it creates later) to the CPU `pin` names;
/// returns that CPU, or `None` when not pinned.
pub(super) fn pin_thread(pin: Pin) -> Result<Option<usize>> {
    let cpu = match pin {
        Pin::None => return Ok(None),
        Pin::Cpu(c) => c,
        // SAFETY: sched_getcpu takes no arguments and only reads the calling thread's state.
        Pin::Auto => match unsafe { libc::sched_getcpu() } {
            c if c >= 0 => c as usize,
            _ => return Err(std::io::Error::last_os_error()).context("sched_getcpu"),
        },
    };
    if cpu >= libc::CPU_SETSIZE as usize {
        anyhow::bail!(
            "--pin {cpu}: CPU numbers go up to {}",
            libc::CPU_SETSIZE - 1
        );
    }
    // SAFETY: an all-zero cpu_set_t is the empty set; CPU_SET writes bit `cpu` (< CPU_SETSIZE,
    // checked above) of it; sched_setaffinity reads size_of::<cpu_set_t>() bytes of `set`.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error())
            .with_context(|| format!("pinning to CPU {cpu}"));
    }
    Ok(Some(cpu))
}
