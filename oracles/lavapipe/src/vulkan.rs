//! The Vulkan side: one device (chosen by driver name), one compute pipeline per sampler type,
//! and batches of gather jobs, each job one texture + sampler + an SSBO of queries.

use std::collections::HashMap;
use std::ffi::CStr;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use tld4_lavapipe::corpus::DriverInfo;
use tld4_textures::{AddressMode, CompareOp, Source, TextureKind, ValueKind};

/// The GLSL source; compiled per variant with glslangValidator's -D macros.
const SHADER: &str = include_str!("../shaders/gather.comp");

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

fn cstr(b: core::result::Result<&CStr, core::ffi::FromBytesUntilNulError>) -> String {
    b.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn version(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

/// Every physical device with its driver, for `devices` and for choosing.
pub fn list_devices() -> Result<Vec<DriverInfo>> {
    let entry =
        unsafe { ash::Entry::load() }.context("loading libvulkan (is libvulkan1 installed?)")?;
    let instance = create_instance(&entry)?;
    let out = unsafe { instance.enumerate_physical_devices() }
        .context("vkEnumeratePhysicalDevices")?
        .into_iter()
        .map(|p| driver_info(&instance, p))
        .collect();
    unsafe { instance.destroy_instance(None) };
    Ok(out)
}

fn create_instance(entry: &ash::Entry) -> Result<ash::Instance> {
    let app = vk::ApplicationInfo::default()
        .application_name(c"tld4-lavapipe")
        .api_version(vk::API_VERSION_1_2);
    let ci = vk::InstanceCreateInfo::default().application_info(&app);
    unsafe { entry.create_instance(&ci, None) }.context("vkCreateInstance")
}

fn driver_info(instance: &ash::Instance, p: vk::PhysicalDevice) -> DriverInfo {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    unsafe { instance.get_physical_device_properties2(p, &mut p2) };
    let props = p2.properties;
    let c = driver.conformance_version;
    DriverInfo {
        device_name: cstr(props.device_name_as_c_str()),
        driver_name: cstr(driver.driver_name_as_c_str()),
        driver_info: cstr(driver.driver_info_as_c_str()),
        driver_id: format!("{:?}", driver.driver_id),
        conformance_version: format!("{}.{}.{}.{}", c.major, c.minor, c.subminor, c.patch),
        api_version: version(props.api_version),
        driver_version: props.driver_version,
        date: String::new(),
    }
}

/// Does `wanted` name this driver? Case-insensitive substring of the driver name, info,
/// device name or driver id; "lavapipe" also names Mesa's llvmpipe (its driverName).
pub fn driver_matches(info: &DriverInfo, wanted: &str) -> bool {
    let w = wanted.to_lowercase();
    let hay = [
        &info.driver_name,
        &info.driver_info,
        &info.device_name,
        &info.driver_id,
    ]
    .map(|s| s.to_lowercase());
    let w = if w == "lavapipe" {
        "llvmpipe".to_string()
    } else {
        w
    };
    hay.iter().any(|h| h.contains(&w))
}

impl Gpu {
    /// Open the first device whose driver matches `driver`.
    pub fn new(driver: &str) -> Result<Self> {
        let entry = unsafe { ash::Entry::load() }
            .context("loading libvulkan (is libvulkan1 installed?)")?;
        let instance = create_instance(&entry)?;
        let pdevs = unsafe { instance.enumerate_physical_devices() }
            .context("vkEnumeratePhysicalDevices")?;
        let mut seen = Vec::new();
        let mut chosen = None;
        for p in pdevs {
            let info = driver_info(&instance, p);
            if chosen.is_none() && driver_matches(&info, driver) {
                chosen = Some((p, info.clone()));
            }
            seen.push(format!(
                "{} ({}, {})",
                info.device_name, info.driver_name, info.driver_info
            ));
        }
        let Some((pdev, info)) = chosen else {
            bail!(
                "no Vulkan device with a driver matching {driver:?}; devices: [{}]",
                seen.join("; ")
            );
        };
        let props = unsafe { instance.get_physical_device_properties(pdev) };
        if props.api_version < vk::API_VERSION_1_2 {
            bail!(
                "{} supports Vulkan {} only; 1.2 is needed",
                info.device_name,
                info.api_version
            );
        }
        let exts: Vec<String> = unsafe { instance.enumerate_device_extension_properties(pdev) }
            .context("vkEnumerateDeviceExtensionProperties")?
            .iter()
            .map(|e| cstr(e.extension_name_as_c_str()))
            .collect();
        let has_cbc = exts.iter().any(|e| e == "VK_EXT_custom_border_color");

        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut fcbc = vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
        if has_cbc {
            f2 = f2.push_next(&mut fcbc);
        }
        unsafe { instance.get_physical_device_features2(pdev, &mut f2) };
        let core = f2.features;
        // textureGatherOffset with non-constant offsets (Vulkan "Texel Gathering"; SPIR-V
        // ImageGatherExtended) and cube arrays are required: there is no fallback.
        if core.shader_image_gather_extended == 0 {
            bail!(
                "{}: shaderImageGatherExtended is not supported",
                info.device_name
            );
        }
        if core.image_cube_array == 0 {
            bail!("{}: imageCubeArray is not supported", info.device_name);
        }
        let caps = Caps {
            custom_border: has_cbc && fcbc.custom_border_colors != 0,
            mirror_clamp: f12.sampler_mirror_clamp_to_edge != 0,
            gather_offsets: (
                props.limits.min_texel_gather_offset,
                props.limits.max_texel_gather_offset as i32,
            ),
            api_1_3: props.api_version >= vk::API_VERSION_1_3,
        };

        let qfi = unsafe { instance.get_physical_device_queue_family_properties(pdev) }
            .iter()
            .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| anyhow!("{}: no compute queue", info.device_name))?
            as u32;
        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(qfi)
            .queue_priorities(&prio)];
        let features = vk::PhysicalDeviceFeatures::default()
            .shader_image_gather_extended(true)
            .image_cube_array(true);
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default()
            .sampler_mirror_clamp_to_edge(caps.mirror_clamp);
        let mut ecbc =
            vk::PhysicalDeviceCustomBorderColorFeaturesEXT::default().custom_border_colors(true);
        let ext_names = [c"VK_EXT_custom_border_color".as_ptr()];
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qci)
            .enabled_features(&features)
            .push_next(&mut e12);
        if caps.custom_border {
            dci = dci.enabled_extension_names(&ext_names).push_next(&mut ecbc);
        }
        let device =
            unsafe { instance.create_device(pdev, &dci, None) }.context("vkCreateDevice")?;
        let queue = unsafe { device.get_device_queue(qfi, 0) };
        let mem = unsafe { instance.get_physical_device_memory_properties(pdev) };
        let cmd_pool = unsafe {
            device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(qfi)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }
        .context("vkCreateCommandPool")?;
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
            vk::DescriptorSetLayoutBinding::default()
                .binding(2)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
        ];
        let dsl = unsafe {
            device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
        }
        .context("vkCreateDescriptorSetLayout")?;
        let pcr = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(4)];
        let dsls = [dsl];
        let layout = unsafe {
            device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .set_layouts(&dsls)
                    .push_constant_ranges(&pcr),
                None,
            )
        }
        .context("vkCreatePipelineLayout")?;
        // One directory per Gpu (several may be open in one process: `bench`).
        static OPENED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let shader_dir =
            std::env::temp_dir().join(format!("tld4-lavapipe-{}-{k}", std::process::id()));
        std::fs::create_dir_all(&shader_dir)
            .with_context(|| format!("creating {}", shader_dir.display()))?;
        std::fs::write(shader_dir.join("gather.comp"), SHADER)
            .context("writing the shader source")?;
        Ok(Gpu {
            _entry: entry,
            instance,
            pdev,
            device,
            queue,
            mem,
            cmd_pool,
            dsl,
            layout,
            pipelines: HashMap::new(),
            shader_dir,
            caps,
            info,
        })
    }

    /// Opens the device as [`Gpu::new`] does, with another compute shader of `gather.comp`'s
    /// interface (bindings, push constant, macros): `tld4-lavapipe bench`'s no-gather twin.
    pub fn with_shader(driver: &str, source: &str) -> Result<Self> {
        let gpu = Self::new(driver)?;
        std::fs::write(gpu.shader_dir.join("gather.comp"), source)
            .context("writing the shader source")?;
        Ok(gpu)
    }

    /// Whether `format` can be sampled (and, with `compare`, depth-compared) with optimal
    /// tiling and filled by a copy (Vulkan "Format Properties": SAMPLED_IMAGE, TRANSFER_DST;
    /// SAMPLED_IMAGE_DEPTH_COMPARISON for compare, Vulkan 1.3).
    pub fn format_supported(
        &self,
        format: vk::Format,
        compare: bool,
    ) -> std::result::Result<(), String> {
        let mut p3 = vk::FormatProperties3::default();
        let mut p2 = vk::FormatProperties2::default();
        if self.caps.api_1_3 {
            p2 = p2.push_next(&mut p3);
        }
        unsafe {
            self.instance
                .get_physical_device_format_properties2(self.pdev, format, &mut p2)
        };
        let f = p2.format_properties.optimal_tiling_features;
        if !f.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
            return Err(format!("{format:?} has no SAMPLED_IMAGE feature"));
        }
        if !f.contains(vk::FormatFeatureFlags::TRANSFER_DST) {
            return Err(format!("{format:?} has no TRANSFER_DST feature"));
        }
        if compare
            && self.caps.api_1_3
            && !p3
                .optimal_tiling_features
                .contains(vk::FormatFeatureFlags2::SAMPLED_IMAGE_DEPTH_COMPARISON)
        {
            return Err(format!(
                "{format:?} has no SAMPLED_IMAGE_DEPTH_COMPARISON feature"
            ));
        }
        Ok(())
    }

    fn pipeline(&mut self, v: Variant) -> Result<vk::Pipeline> {
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

    fn memory_type(&self, bits: u32, want: vk::MemoryPropertyFlags) -> Result<u32> {
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

    fn host_buffer(
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
        let n = jobs.len() as u32;
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
        let layouts = vec![self.dsl; jobs.len()];
        let sets = unsafe {
            self.device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(dpool)
                    .set_layouts(&layouts),
            )
        }
        .context("vkAllocateDescriptorSets")?;
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
        let mut result_ptrs = Vec::with_capacity(jobs.len());
        for ((job, set), pipeline) in jobs.iter().zip(&sets).zip(&pipelines) {
            let (image, view, sampler) = self.texture(res, job, cb)?;
            let qbytes = std::mem::size_of_val(job.queries.as_slice());
            let (qbuf, qptr) =
                self.host_buffer(res, qbytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
            // SAFETY: the mapping holds at least qbytes bytes; GpuQuery is plain data.
            unsafe {
                std::ptr::copy_nonoverlapping(job.queries.as_ptr() as *const u8, qptr, qbytes)
            };
            let rbytes = job.queries.len() * 16;
            let (rbuf, rptr) =
                self.host_buffer(res, rbytes, vk::BufferUsageFlags::STORAGE_BUFFER)?;
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
        }
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

    /// Create, fill and transition a job's image; create its view and sampler.
    fn texture(
        &self,
        res: &mut Resources,
        job: &Job,
        cb: vk::CommandBuffer,
    ) -> Result<(vk::Image, vk::ImageView, vk::Sampler)> {
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

        let (staging, sptr) =
            self.host_buffer(res, job.bytes.len(), vk::BufferUsageFlags::TRANSFER_SRC)?;
        // SAFETY: the mapping holds at least bytes.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(job.bytes.as_ptr(), sptr, job.bytes.len()) };
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
        let to_dst = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::empty())
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(range(barrier_aspect));
        let to_read = vk::ImageMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::SHADER_READ)
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(range(barrier_aspect));
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
                    .subresource_range(range(aspect)),
                None,
            )
        }
        .context("vkCreateImageView")?;
        res.views.push(view);
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
        Ok((image, view, sampler))
    }
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

/// Everything one batch created, destroyed after it ran (or failed).
#[derive(Default)]
struct Resources {
    images: Vec<vk::Image>,
    views: Vec<vk::ImageView>,
    samplers: Vec<vk::Sampler>,
    buffers: Vec<vk::Buffer>,
    memory: Vec<vk::DeviceMemory>,
    descriptor_pools: Vec<vk::DescriptorPool>,
    command_buffers: Vec<vk::CommandBuffer>,
    fences: Vec<vk::Fence>,
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
