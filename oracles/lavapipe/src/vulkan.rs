//! The Vulkan side: one device (chosen by driver name), one compute pipeline per sampler type,
//! and batches of gather jobs, each job one texture + sampler + an SSBO of queries.
//!
//! This module holds what a job is (`Job`, `GpuQuery`, `Border`) and the device (`Gpu`, `Caps`);
//! `device` opens it, `pipeline` compiles the shader per sampler type, `batch` runs a batch of
//! jobs in one submission and `texture` makes each job's image, view and sampler.

use std::collections::HashMap;
use std::path::PathBuf;

use ash::vk;
use tld4_lavapipe::corpus::DriverInfo;
use tld4_textures::{AddressMode, CompareOp, Source, TextureKind, ValueKind};

mod batch;
pub(crate) mod device;
mod pipeline;
mod texture;

/// One query as the shader reads it (std430, 64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct GpuQuery {
    /// s, t[, layer] or x, y, z[, cube]; unused entries 0.
    pub coord: [f32; 4],
    /// AOFFI offset in [0..2]; PTP offsets 0 and 1.
    pub off01: [i32; 4],
    /// PTP offsets 2 and 3.
    pub off23: [i32; 4],
    /// Depth reference.
    pub dref: f32,
    /// Component 0..3.
    pub comp: i32,
    /// 0 plain, 1 AOFFI, 2 PTP.
    pub mode: i32,
    /// Padding to 64 bytes.
    pub pad: i32,
}

/// The sampler's border.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Border {
    /// A VkBorderColor.
    Named(vk::BorderColor),
    /// VK_EXT_custom_border_color words (read as floats or integers by the format).
    Custom([u32; 4]),
}

/// One texture, sampler and its queries.
#[derive(Debug, Clone)]
pub struct Job {
    /// Kind.
    pub kind: TextureKind,
    /// Vulkan format.
    pub format: vk::Format,
    /// Depth format (the view and copies use the depth aspect).
    pub depth: bool,
    /// The format also has stencil (D24S8): layout transitions name both aspects.
    pub stencil: bool,
    /// What the gather returns: float, uint or sint (compare: float).
    pub values: ValueKind,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Image array layers (cube kinds: 6 per cube).
    pub array_layers: u32,
    /// Tightly packed texels, layer by layer (Vulkan buffer-image copy layout).
    pub bytes: Vec<u8>,
    /// Component mapping of the view.
    pub swizzle: [Source; 4],
    /// Address modes u, v.
    pub address: [AddressMode; 2],
    /// Border.
    pub border: Border,
    /// Depth compare.
    pub compare: Option<CompareOp>,
    /// The queries.
    pub queries: Vec<GpuQuery>,
}

/// Which compute pipeline a job needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Variant {
    kind: TextureKind,
    values: u8, // 0 float, 1 uint, 2 sint
    shadow: bool,
}

/// What the chosen device can do.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    /// VK_EXT_custom_border_color with customBorderColors.
    pub custom_border: bool,
    /// samplerMirrorClampToEdge.
    pub mirror_clamp: bool,
    /// minTexelGatherOffset, maxTexelGatherOffset.
    pub gather_offsets: (i32, i32),
    /// Vulkan 1.3 (format features 2 for depth comparison).
    pub api_1_3: bool,
}

/// The device and its pipelines.
pub struct Gpu {
    _entry: ash::Entry,
    instance: ash::Instance,
    pdev: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    mem: vk::PhysicalDeviceMemoryProperties,
    cmd_pool: vk::CommandPool,
    dsl: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipelines: HashMap<Variant, vk::Pipeline>,
    shader_dir: PathBuf,
    /// What the device can do.
    pub caps: Caps,
    /// Who it is.
    pub info: DriverInfo,
}

impl Drop for Gpu {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            for p in self.pipelines.values() {
                self.device.destroy_pipeline(*p, None);
            }
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device.destroy_descriptor_set_layout(self.dsl, None);
            self.device.destroy_command_pool(self.cmd_pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
        let _ = std::fs::remove_dir_all(&self.shader_dir);
    }
}
