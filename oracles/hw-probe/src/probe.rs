//! The device run: phases of gathers, each in a child process of its own (a fault or a hang in
//! one cannot spoil the others), each writing `phases/<name>.json` under the output folder;
//! the parent merges them into `hw_results.json` with the GPU, driver and date.
//!
//! The parts: `texture` (the textures a phase makes), `queries` (query records and
//! deterministic words), `context` (what a phase works with: the driver, the kernels, the
//! recorded runs), `phases` (the phase table and each phase's gathers), `run` (the parent and
//! child processes and the merged results) and `date`.

mod context;
mod date;
mod phases;
mod queries;
mod run;
mod texture;

pub use context::{Ctx, KernelSource};
pub use date::{civil_from_days, utc_now};
pub use phases::arrays::cube_directions;
pub use phases::values::f16_test_values;
pub use phases::{risky_phases, Phase, PHASES};
pub use run::{portable_ptx_hash, run_all, run_child, KernelChoice};
pub use texture::{index_texture, Kind, Tex, TexSpec};

/// The format version of `hw_results.json`.
pub const SCHEMA: u32 = 2;

/// The sentinels loaded into quad C before the TLD4 (as halves 0x7fa0 is a NaN and 0x5e0k a
/// number, neither of which a gather of the probe's textures yields).
pub const SENTINELS: [u32; 4] = [0x7fa0_5e00, 0x7fa0_5e01, 0x7fa0_5e02, 0x7fa0_5e03];

/// Why a patched variant did not run: the run's kernels are not the sm_90 cubin.
pub const NOT_SM90: &str = "patched TLD4 variants need the committed sm_90 cubin (an SM90 GPU); this run's kernels are the portable PTX's";
