//! Scenarios for the TLD4 emulator: a warp, its textures and samplers, named handles, one
//! TLD4 and what is expected of each lane. Build one in Rust with [`ScenarioBuilder`] (a
//! shader unit test) or read one from JSON with [`load`] (`tld4 run`, docs/scenarios.md);
//! both make the same [`Scenario`], which executes many times
//! ([`Scenario::execute`]) and reports lane by lane ([`run`]).
//!
//! Textures are owned ([`Textures::Owned`]: `textures`, `samplers`) or in GPU memory
//! ([`Textures::Memory`]: `memory` regions and the `texture_header_pool` and `sampler_pool`
//! addresses, as a simulator holds them; [`MemoryImage`]). [`Scenario::to_memory_form`] and
//! [`to_memory_json`] turn owned textures into their memory form, [`address_lines`] lists
//! each lane's texel addresses (`tld4 run --addresses`).
//!
//! ```
//! use approx::assert_relative_eq;
//! use tld4_scenario::{Lanes, Scenario};
//! use tld4_textures::{Format, Sampler, Texture, TextureDesc, TextureKind};
//!
//! // A 2x2 RGBA8 texture; gather its green channel at the centre.
//! let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::Rgba8Unorm, width: 2, height: 2, layers: 1 };
//! let texels = [0, 10, 20, 255, 51, 61, 71, 255, 102, 112, 122, 255, 255, 205, 195, 255];
//! let mut b = Scenario::builder();
//! let tex = b.texture(Texture::from_fields(desc, &texels)?)?;
//! let smp = b.sampler(Sampler::default())?;
//! let albedo = b.handle("albedo", tex, smp)?;
//! b.instruction("TLD4.G R10, R8, R4, UR4, 2D ;")?
//!     .uniform(4, albedo)?
//!     .reg(Lanes::ALL, 4, 0.5f32)?
//!     .reg(Lanes::ALL, 5, 0.5f32)?;
//! let s = b.build()?;
//! let run = s.execute()?;
//! // x, y, z, w = texels (0,1), (1,1), (1,0), (0,0): green 112, 205, 61, 10.
//! for (k, g) in [112.0f32, 205.0, 61.0, 10.0].iter().enumerate() {
//!     assert_relative_eq!(run.reg_f32(0, 8 + k as u8), g / 255.0, max_relative = 1e-6);
//! }
//! // The same scenario from JSON:
//! let json = r#"{"textures": [{"dim": "2d", "format": "rgba8_unorm", "width": 2, "height": 2,
//!     "texels": [0, 10, 20, 255, 51, 61, 71, 255, 102, 112, 122, 255, 255, 205, 195, 255]}],
//!   "samplers": [{"address_u": "clamp_to_edge", "address_v": "clamp_to_edge"}],
//!   "handles": {"albedo": {"texture": 0, "sampler": 0}},
//!   "instruction": "TLD4.G R10, R8, R4, UR4, 2D ;", "uniform": {"UR4": "albedo"},
//!   "lanes": [{"lanes": "all", "R4": 0.5, "R5": 0.5}]}"#;
//! let from_json = tld4_scenario::load(json)?.execute()?;
//! assert_eq!(from_json.reg(31, 9), run.reg(31, 9));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod addresses;
mod arch;
mod builder;
mod convert;
pub mod cubin_ref;
mod error;
mod files;
mod generate;
mod instruction_doc;
mod json;
pub mod memory;
mod report;
pub mod value;

pub use addresses::{address_lines, arch_address_lines, texel_text, BORDER_TEXT, CORNER_TEXT};
pub use arch::{
    load_arch, names_arch, run_arch, ArchScenario, CONSTANT_BANKS, MAX_CONSTANT_BANK_BYTES,
};
pub use builder::{
    Check, Executed, Scenario, ScenarioBuilder, Textures, MAX_SAMPLERS, MAX_TEXTURES,
};
pub use convert::{
    layout_by_name, memory_image, memory_json, to_memory_json, MemoryJson, BLOCK_LINEAR,
    DEFAULT_BASE, PITCH, TEXEL_ALIGN,
};
pub use error::ScenarioError;
pub use files::{LoadOptions, MAX_REGION_FILE_BYTES, MAX_SCENARIO_MEMORY_BYTES};
pub use generate::{storage_bytes, Generate, MAX_GENERATED_BYTES};
pub use json::{load, load_in, load_with};
pub use memory::MemoryImage;
pub use report::{describe, fault_kind, run, show_value, warnings, Outcome};
pub use tld4_gpu_memory::LayoutChoice;
pub use value::{matches, ulps, Expected, Lanes, Loc, RegValue, Tolerance};
