//! The TLD4 hardware probe: PTX kernels (compiled by the driver's JIT or ptxas for any GPU from
//! SM75 to SM121) and patched-cubin variants of NVIDIA's TLD4 (SM90), run through the CUDA
//! driver API (loaded at run time), with the results recorded as JSON, compared lane by lane
//! with tld4 and turned into golden data and a report per open question. See README.md.

pub mod compare;
pub mod cuda;
pub mod elf;
pub mod forms;
pub mod kernels;
pub mod layout;
pub mod nvdisasm;
pub mod patch;
pub mod pitch_model;
pub mod probe;
pub mod ptx;
pub mod questions;
pub mod report;
pub mod sm90;
