//! A job's texture: the image (device memory, filled from a staging buffer by a copy between
//! two layout transitions), its view (kind, swizzle) and its sampler (address modes, border,
//! depth compare).

use anyhow::{Context, Result};
use ash::vk;
use tld4_textures::{AddressMode, CompareOp, Source, TextureKind, ValueKind};

use super::batch::Resources;
use super::{Border, Gpu, Job};

impl Gpu {
    /// Create, fill and transition a job's image; create its view and sampler.
    pub(super) fn texture(
        &self,
        res: &mut Resources,
        job: &Job,
        cb: vk::CommandBuffer,
    ) -> Result<(vk::Image, vk::ImageView, vk::Sampler)> {
        let image = self.image(res, job)?;
        let aspect = if job.depth {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        };
        // Layout transitions of a depth/stencil image name both aspects (Vulkan
        // VUID-VkImageMemoryBarrier-image-03320 without separateDepthStencilLayouts).
        let barrier_aspect = if job.stencil {
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
        } else {
            aspect
        };
        let range = |a| vk::ImageSubresourceRange {
            aspect_mask: a,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: job.array_layers,
        };
        self.upload(res, job, cb, image, aspect, range(barrier_aspect))?;
        let view = self.view(res, job, image, range(aspect))?;
        let sampler = self.sampler(res, job)?;
        Ok((image, view, sampler))
    }

    /// The image, in device-local memory when there is such (freed with the batch).
    fn image(&self, res: &mut Resources, job: &Job) -> Result<vk::Image> {
        let cube = job.kind.is_cube();
        let image = unsafe {
            self.device.create_image(
                &vk::ImageCreateInfo::default()
                    .flags(if cube {
                        vk::ImageCreateFlags::CUBE_COMPATIBLE
                    } else {
                        vk::ImageCreateFlags::empty()
                    })
                    .image_type(vk::ImageType::TYPE_2D)
                    .format(job.format)
                    .extent(vk::Extent3D {
                        width: job.width,
                        height: job.height,
                        depth: 1,
                    })
                    .mip_levels(1)
                    .array_layers(job.array_layers)
                    .samples(vk::SampleCountFlags::TYPE_1)
                    .tiling(vk::ImageTiling::OPTIMAL)
                    .usage(vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST)
                    .sharing_mode(vk::SharingMode::EXCLUSIVE)
                    .initial_layout(vk::ImageLayout::UNDEFINED),
                None,
            )
        }
        .with_context(|| {
            format!(
                "vkCreateImage {:?} {}x{}x{}",
                job.format, job.width, job.height, job.array_layers
            )
        })?;
        res.images.push(image);
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        let ty = self
            .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
            .or_else(|_| {
                self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
            })?;
        let mem = unsafe {
            self.device.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
        }
        .context("vkAllocateMemory (image)")?;
        res.memory.push(mem);
        unsafe { self.device.bind_image_memory(image, mem, 0) }.context("vkBindImageMemory")?;
        Ok(image)
    }

    /// Records the upload: the texels into a staging buffer, then the copy into the image
    /// between the transitions to TRANSFER_DST_OPTIMAL and SHADER_READ_ONLY_OPTIMAL.
    fn upload(
        &self,
        res: &mut Resources,
        job: &Job,
        cb: vk::CommandBuffer,
        image: vk::Image,
        aspect: vk::ImageAspectFlags,
        barrier_range: vk::ImageSubresourceRange,
    ) -> Result<()> {
        let (staging, sptr) =
            self.host_buffer(res, job.bytes.len(), vk::BufferUsageFlags::TRANSFER_SRC)?;
        // SAFETY: the mapping holds at least bytes.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(job.bytes.as_ptr(), sptr, job.bytes.len()) };
        let to_dst = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::empty())
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(barrier_range);
        let to_read = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ)
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(barrier_range);
        // Buffer rows and layers are tightly packed (bufferRowLength = bufferImageHeight = 0);
        // a D24S8 depth-aspect copy reads 32-bit words with the depth in the low 24 bits
        // (Vulkan "Copying Data Between Buffers and Images", depth/stencil formats).
        let region = [vk::BufferImageCopy::default()
            .buffer_offset(0)
            .buffer_row_length(0)
            .buffer_image_height(0)
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: aspect,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: job.array_layers,
            })
            .image_extent(vk::Extent3D {
                width: job.width,
                height: job.height,
                depth: 1,
            })];
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_dst],
            );
            self.device.cmd_copy_buffer_to_image(
                cb,
                staging,
                image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &region,
            );
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[to_read],
            );
        }
        Ok(())
    }

    /// The image's view: the job's kind and swizzle.
    fn view(
        &self,
        res: &mut Resources,
        job: &Job,
        image: vk::Image,
        view_range: vk::ImageSubresourceRange,
    ) -> Result<vk::ImageView> {
        let sw = |s: Source| match s {
            Source::R => vk::ComponentSwizzle::R,
            Source::G => vk::ComponentSwizzle::G,
            Source::B => vk::ComponentSwizzle::B,
            Source::A => vk::ComponentSwizzle::A,
            Source::Zero => vk::ComponentSwizzle::ZERO,
            Source::One => vk::ComponentSwizzle::ONE,
        };
        let view_type = match job.kind {
            TextureKind::Tex2D => vk::ImageViewType::TYPE_2D,
            TextureKind::Tex2DArray => vk::ImageViewType::TYPE_2D_ARRAY,
            TextureKind::Cube => vk::ImageViewType::CUBE,
            TextureKind::CubeArray => vk::ImageViewType::CUBE_ARRAY,
        };
        let view = unsafe {
            self.device.create_image_view(
                &vk::ImageViewCreateInfo::default()
                    .image(image)
                    .view_type(view_type)
                    .format(job.format)
                    .components(vk::ComponentMapping {
                        r: sw(job.swizzle[0]),
                        g: sw(job.swizzle[1]),
                        b: sw(job.swizzle[2]),
                        a: sw(job.swizzle[3]),
                    })
                    .subresource_range(view_range),
                None,
            )
        }
        .context("vkCreateImageView")?;
        res.views.push(view);
        Ok(view)
    }

    /// The job's sampler: address modes, border (named or custom), depth compare.
    fn sampler(&self, res: &mut Resources, job: &Job) -> Result<vk::Sampler> {
        let mode = |m: AddressMode| match m {
            AddressMode::Repeat => vk::SamplerAddressMode::REPEAT,
            AddressMode::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
            AddressMode::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
            AddressMode::ClampToBorder => vk::SamplerAddressMode::CLAMP_TO_BORDER,
            AddressMode::MirrorClampToEdge => vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE,
        };
        let op = |c: CompareOp| vk::CompareOp::from_raw(c as i32);
        let integer =
            matches!(job.values, ValueKind::Uint | ValueKind::Sint) && job.compare.is_none();
        let (border_color, custom) = match job.border {
            Border::Named(b) => (b, None),
            Border::Custom(words) => (
                if integer {
                    vk::BorderColor::INT_CUSTOM_EXT
                } else {
                    vk::BorderColor::FLOAT_CUSTOM_EXT
                },
                Some(words),
            ),
        };
        let mut cbc = vk::SamplerCustomBorderColorCreateInfoEXT::default()
            .custom_border_color(vk::ClearColorValue {
                uint32: custom.unwrap_or_default(),
            })
            .format(job.format);
        // NEAREST: gathers ignore the filter (Vulkan "Texel Gathering"), and D32_SFLOAT cannot
        // take LINEAR on lavapipe (docs/sources.md, lavapipe). One level, LOD 0.
        let mut sci = vk::SamplerCreateInfo::default()
            .mag_filter(vk::Filter::NEAREST)
            .min_filter(vk::Filter::NEAREST)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(mode(job.address[0]))
            .address_mode_v(mode(job.address[1]))
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .compare_enable(job.compare.is_some())
            .compare_op(job.compare.map_or(vk::CompareOp::NEVER, op))
            .min_lod(0.0)
            .max_lod(0.0)
            .border_color(border_color)
            .unnormalized_coordinates(false);
        if custom.is_some() {
            sci = sci.push_next(&mut cbc);
        }
        let sampler =
            unsafe { self.device.create_sampler(&sci, None) }.context("vkCreateSampler")?;
        res.samplers.push(sampler);
        Ok(sampler)
    }
}
