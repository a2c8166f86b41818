//! The `tld4` Python package's native module (`tld4._native`): the decoder, the texture
//! unit, the executor, scenarios, explanations and cubin scanning, with numpy arrays in and
//! out. It decides no rule: every value comes from the workspace's crates, and errors carry
//! their messages.
//! The Python names, signatures and docs the users see are in `tld4/__init__.py` and the
//! committed stub `tld4/_native.pyi`.

use pyo3::prelude::*;

mod callback;
mod check;
mod columns;
mod decode;
mod errors;
mod exec;
mod explain;
mod gather;
mod memory;
mod names;
mod queries;
mod residency;
mod scan;
mod scenario;
mod texture;
mod turns;
mod warp;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DecodeError", py.get_type::<errors::DecodeError>())?;
    m.add("AsmError", py.get_type::<errors::AsmError>())?;
    m.add("WarpFault", py.get_type::<errors::WarpFault>())?;
    m.add("ScenarioError", py.get_type::<errors::ScenarioError>())?;
    m.add("ScanError", py.get_type::<errors::ScanError>())?;
    m.add("ExplainError", py.get_type::<errors::ExplainError>())?;
    m.add_class::<decode::Instruction>()?;
    m.add_function(wrap_pyfunction!(decode::decode, m)?)?;
    m.add_function(wrap_pyfunction!(decode::assemble, m)?)?;
    m.add_function(wrap_pyfunction!(decode::disasm, m)?)?;
    m.add_class::<texture::Texture>()?;
    m.add_class::<texture::Sampler>()?;
    m.add_function(wrap_pyfunction!(gather::gather, m)?)?;
    m.add_class::<check::CheckReport>()?;
    m.add_function(wrap_pyfunction!(check::check, m)?)?;
    m.add_function(wrap_pyfunction!(gather::_rust_gather_lanes_seconds, m)?)?;
    m.add_class::<warp::Warp>()?;
    m.add_class::<exec::Pool>()?;
    m.add_class::<exec::Exec>()?;
    m.add_class::<memory::Memory>()?;
    m.add_function(wrap_pyfunction!(memory::texture_descriptors, m)?)?;
    m.add_function(wrap_pyfunction!(memory::sampler_descriptor, m)?)?;
    m.add_class::<scenario::Scenario>()?;
    m.add_class::<scenario::ScenarioResult>()?;
    m.add_function(wrap_pyfunction!(scan::scan, m)?)?;
    m.add_class::<explain::Explanation>()?;
    m.add_function(wrap_pyfunction!(explain::explain, m)?)?;
    let fault_kinds: Vec<&str> = tld4_emu::FaultKind::ALL.iter().map(|k| k.name()).collect();
    m.add("FAULT_KINDS", fault_kinds)?;
    Ok(())
}
