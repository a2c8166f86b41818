//! One compute pipeline per sampler type, compiled from `gather.comp` by glslangValidator with
//! the variant's macros.

use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use tld4_textures::TextureKind;

use super::{Gpu, Variant};

impl Gpu {
    pub(super) fn pipeline(&mut self, v: Variant) -> Result<vk::Pipeline> {
        if let Some(p) = self.pipelines.get(&v) {
            return Ok(*p);
        }
        let (base, n, offset) = match v.kind {
            TextureKind::Tex2D => ("sampler2D", 2, true),
            TextureKind::Tex2DArray => ("sampler2DArray", 3, true),
            TextureKind::Cube => ("samplerCube", 3, false),
            TextureKind::CubeArray => ("samplerCubeArray", 4, false),
        };
        let (prefix, result, bits) = match v.values {
            1 => ("u", "uvec4", "uvec4"),
            2 => ("i", "ivec4", "uvec4"),
            _ => ("", "vec4", "floatBitsToUint"),
        };
        let sampler = format!("{prefix}{base}{}", if v.shadow { "Shadow" } else { "" });
        let spv = self.shader_dir.join(format!("{sampler}.spv"));
        let mut cmd = Command::new("glslangValidator");
        cmd.arg("-V")
            .arg("-S")
            .arg("comp")
            .arg(format!("-DSAMPLER={sampler}"))
            .arg(format!("-DCOORD_N={n}"))
            .arg(format!("-DRESULT={result}"))
            .arg(format!("-DRESULT_BITS={bits}"));
        if offset {
            cmd.arg("-DHAS_OFFSET");
        }
        if v.shadow {
            cmd.arg("-DSHADOW");
        }
        cmd.arg("-o")
            .arg(&spv)
            .arg(self.shader_dir.join("gather.comp"));
        let out = cmd
            .output()
            .context("running glslangValidator (is glslang-tools installed?)")?;
        if !out.status.success() {
            bail!(
                "glslangValidator failed for {sampler}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let bytes = std::fs::read(&spv).with_context(|| format!("reading {}", spv.display()))?;
        let words =
            ash::util::read_spv(&mut std::io::Cursor::new(bytes)).context("reading SPIR-V")?;
        let module = unsafe {
            self.device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
        }
        .context("vkCreateShaderModule")?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let ci = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.layout)];
        let p = unsafe {
            self.device
                .create_compute_pipelines(vk::PipelineCache::null(), &ci, None)
        }
        .map_err(|(_, e)| anyhow!("vkCreateComputePipelines for {sampler}: {e}"))?[0];
        unsafe { self.device.destroy_shader_module(module, None) };
        self.pipelines.insert(v, p);
        Ok(p)
    }
}
