//! Running a batch of jobs in one submission: host-visible buffers, descriptor sets, one
//! command buffer with a dispatch per job, the results read back; and everything the batch
//! created, destroyed after it ran.

use anyhow::{anyhow, Context, Result};
use ash::vk;
use tld4_textures::ValueKind;

use super::{Gpu, Job, Variant};

impl Gpu {
    pub(super) fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32> {
        (0..self.mem.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.mem.memory_types[i as usize]
                        .property_flags
                        .contains(want)
            })
            .ok_or_else(|| anyhow!("no memory type with {want:?}"))
    }

    /// Run a batch of jobs in one submission; returns each job's results, four words per
    /// query (f32 bits, or the raw integers).
    pub fn run(&mut self, jobs: &[Job]) -> Result<Vec<Vec<[u32; 4]>>> {
        let mut res = Resources::default();
        let out = self.run_inner(jobs, &mut res);
        res.destroy(&self.device, self.cmd_pool);
        out
    }

    pub(super) fn host_buffer(
        &self,
        res: &mut Resources,
        size: usize,
        usage: vk::BufferUsageFlags,
    ) -> Result<(vk::Buffer, *mut u8)> {
        let size = size.max(16) as u64;
        let buf = unsafe {
            self.device.create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(size)
                    .usage(usage)
                    .sharing_mode(vk::SharingMode::EXCLUSIVE),
                None,
            )
        }
        .context("vkCreateBuffer")?;
        res.buffers.push(buf);
        let req = unsafe { self.device.get_buffer_memory_requirements(buf) };
        let ty = self.memory_type(
            req.memory_type_bits,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
        )?;
        let mem = unsafe {
            self.device.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(req.size)
                    .memory_type_index(ty),
                None,
            )
        }
        .context("vkAllocateMemory (buffer)")?;
        res.memory.push(mem);
        unsafe { self.device.bind_buffer_memory(buf, mem, 0) }.context("vkBindBufferMemory")?;
        let ptr = unsafe {
            self.device
                .map_memory(mem, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
        }
        .context("vkMapMemory")? as *mut u8;
        Ok((buf, ptr))
    }

    fn run_inner(&mut self, jobs: &[Job], res: &mut Resources) -> Result<Vec<Vec<[u32; 4]>>> {
        let pipelines: Vec<vk::Pipeline> = jobs
            .iter()
            .map(|j| {
                self.pipeline(Variant {
                    kind: j.kind,
                    values: match j.values {
                        ValueKind::Uint => 1,
                        ValueKind::Sint => 2,
                        _ => 0,
                    },
                    shadow: j.compare.is_some(),
                })
            })
            .collect::<Result<_>>()?;
        let sets = self.descriptor_sets(jobs.len(), res)?;
        let cb = self.begin_commands(res)?;
        let mut result_ptrs = Vec::with_capacity(jobs.len());
        for ((job, set), pipeline) in jobs.iter().zip(&sets).zip(&pipelines) {
            self.record_job(res, job, set, pipeline, cb, &mut result_ptrs)?;
        }
        self.submit_and_wait(res, cb)?;
        Ok(jobs
            .iter()
            .zip(result_ptrs)
            .map(|(job, p)| {
                (0..job.queries.len())
                    .map(|q| {
                        // SAFETY: the mapping holds 16 bytes per query, written by the shader.
                        std::array::from_fn(|k| unsafe { p.add(q * 4 + k).read_unaligned() })
                    })
                    .collect()
            })
            .collect())
    }

    /// A descriptor pool for `jobs` jobs (freed with the batch), and one set for each.
    fn descriptor_sets(&self, jobs: usize, res: &mut Resources) -> Result<Vec<vk::DescriptorSet>> {
        let n = jobs as u32;
        let pool_sizes = [
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
                descriptor_count: n,
            },
            vk::DescriptorPoolSize {
                ty: vk::DescriptorType::STORAGE_BUFFER,
                descriptor_count: 2 * n,
            },
        ];
        let dpool = unsafe {
            self.device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(n)
                    .pool_sizes(&pool_sizes),
                None,
            )
        }
        .context("vkCreateDescriptorPool")?;
        res.descriptor_pools.push(dpool);
        let layouts = vec![self.dsl; jobs];
        let sets = unsafe {
            self.device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(dpool)
                    .set_layouts(&layouts),
            )
        }
        .context("vkAllocateDescriptorSets")?;
        Ok(sets)
    }

    /// The batch's command buffer, begun (one-time submit).
    fn begin_commands(&self, res: &mut Resources) -> Result<vk::CommandBuffer> {
        let cb = unsafe {
            self.device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.cmd_pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1),
            )
        }
        .context("vkAllocateCommandBuffers")?[0];
        res.command_buffers.push(cb);
        unsafe {
            self.device.begin_command_buffer(
                cb,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )
        }
        .context("vkBeginCommandBuffer")?;
        Ok(cb)
    }

    /// One job: its texture, query and result buffers (the results preset to all ones bits),
    /// descriptor writes, and the dispatch; the result mapping is appended to `result_ptrs`.
    fn record_job(
        &self,
        res: &mut Resources,
        job: &Job,
        set: &vk::DescriptorSet,
        pipeline: &vk::Pipeline,
        cb: vk::CommandBuffer,
        result_ptrs: &mut Vec<*const u32>,
    ) -> Result<()> {
        let (image, view, sampler) = self.texture(res, job, cb)?;
        let qbytes = std::mem::size_of_val(job.queries.as_slice());
        let (qbuf, qptr) = self.host_buffer(res, qbytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
        // SAFETY: the mapping holds at least qbytes bytes; GpuQuery is plain data.
        unsafe { std::ptr::copy_nonoverlapping(job.queries.as_ptr() as *const u8, qptr, qbytes) };
        let rbytes = job.queries.len() * 16;
        let (rbuf, rptr) = self.host_buffer(res, rbytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
        unsafe { std::ptr::write_bytes(rptr, 0xff, rbytes) };
        result_ptrs.push(rptr as *const u32);
        let _ = image;
        let img_info = [vk::DescriptorImageInfo {
            sampler,
            image_view: view,
            image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        }];
        let q_info = [vk::DescriptorBufferInfo {
            buffer: qbuf,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        let r_info = [vk::DescriptorBufferInfo {
            buffer: rbuf,
            offset: 0,
            range: vk::WHOLE_SIZE,
        }];
        let writes = [
            vk::WriteDescriptorSet::default()
                .dst_set(*set)
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .image_info(&img_info),
            vk::WriteDescriptorSet::default()
                .dst_set(*set)
                .dst_binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&q_info),
            vk::WriteDescriptorSet::default()
                .dst_set(*set)
                .dst_binding(2)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .buffer_info(&r_info),
        ];
        unsafe {
            self.device.update_descriptor_sets(&writes, &[]);
            self.device
                .cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, *pipeline);
            self.device.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &[*set],
                &[],
            );
            self.device.cmd_push_constants(
                cb,
                self.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &(job.queries.len() as u32).to_le_bytes(),
            );
            self.device
                .cmd_dispatch(cb, (job.queries.len() as u32).div_ceil(64).max(1), 1, 1);
        }
        Ok(())
    }

    /// Ends the command buffer with a barrier that makes the shader's writes visible to the
    /// host, submits it and waits for its fence.
    fn submit_and_wait(&self, res: &mut Resources, cb: vk::CommandBuffer) -> Result<()> {
        let host = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ)];
        unsafe {
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &host,
                &[],
                &[],
            );
            self.device.end_command_buffer(cb)
        }
        .context("vkEndCommandBuffer")?;
        let fence = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .context("vkCreateFence")?;
        res.fences.push(fence);
        let cbs = [cb];
        let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
        unsafe {
            self.device
                .queue_submit(self.queue, &submit, fence)
                .context("vkQueueSubmit")?;
            self.device
                .wait_for_fences(&[fence], true, u64::MAX)
                .context("vkWaitForFences")?;
        }
        Ok(())
    }
}

/// Everything one batch created, destroyed after it ran (or failed).
#[derive(Default)]
pub(super) struct Resources {
    pub(super) images: Vec<vk::Image>,
    pub(super) views: Vec<vk::ImageView>,
    pub(super) samplers: Vec<vk::Sampler>,
    pub(super) buffers: Vec<vk::Buffer>,
    pub(super) memory: Vec<vk::DeviceMemory>,
    pub(super) descriptor_pools: Vec<vk::DescriptorPool>,
    pub(super) command_buffers: Vec<vk::CommandBuffer>,
    pub(super) fences: Vec<vk::Fence>,
}

impl Resources {
    fn destroy(&mut self, d: &ash::Device, pool: vk::CommandPool) {
        unsafe {
            let _ = d.device_wait_idle();
            for f in self.fences.drain(..) {
                d.destroy_fence(f, None);
            }
            for p in self.descriptor_pools.drain(..) {
                d.destroy_descriptor_pool(p, None);
            }
            for s in self.samplers.drain(..) {
                d.destroy_sampler(s, None);
            }
            for v in self.views.drain(..) {
                d.destroy_image_view(v, None);
            }
            for i in self.images.drain(..) {
                d.destroy_image(i, None);
            }
            for b in self.buffers.drain(..) {
                d.destroy_buffer(b, None);
            }
            for m in self.memory.drain(..) {
                d.free_memory(m, None);
            }
            if !self.command_buffers.is_empty() {
                d.free_command_buffers(pool, &self.command_buffers);
            }
        }
        self.command_buffers.clear();
    }
}
