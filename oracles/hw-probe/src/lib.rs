//! The TLD4 hardware probe: PTX kernels and patched-cubin variants of NVIDIA's TLD4, run on an
//! SM90 GPU through the CUDA driver API (loaded at run time), with the results recorded as
//! JSON and turned into golden data and a report. See README.md.

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
