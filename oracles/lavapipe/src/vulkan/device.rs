//! Opening the device: the driver chosen by name, the features and limits the harness needs,
//! the logical device, the descriptor and pipeline layouts, and the shader's directory.

use std::collections::HashMap;
use std::ffi::CStr;
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use tld4_lavapipe::corpus::DriverInfo;

use super::{Caps, Gpu};

/// The GLSL source; compiled per variant with glslangValidator's -D macros.
const SHADER: &str = include_str!("../../shaders/gather.comp");

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
        let (pdev, info) = choose_device(&instance, driver)?;
        let props = unsafe { instance.get_physical_device_properties(pdev) };
        if props.api_version < vk::API_VERSION_1_2 {
            bail!(
                "{} supports Vulkan {} only; 1.2 is needed",
                info.device_name,
                info.api_version
            );
        }
        let caps = device_caps(&instance, pdev, &info, &props)?;
        let (device, qfi) = create_device(&instance, pdev, &info, &caps)?;
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
        let (dsl, layout) = create_layouts(&device)?;
        let shader_dir = make_shader_dir()?;
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
}

/// The first physical device whose driver matches `driver` (an error naming every device
/// otherwise).
fn choose_device(
    instance: &ash::Instance,
    driver: &str,
) -> Result<(vk::PhysicalDevice, DriverInfo)> {
    let pdevs =
        unsafe { instance.enumerate_physical_devices() }.context("vkEnumeratePhysicalDevices")?;
    let mut seen = Vec::new();
    let mut chosen = None;
    for p in pdevs {
        let info = driver_info(instance, p);
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
    Ok((pdev, info))
}

/// What the device can do, and an error if it lacks what the harness requires.
fn device_caps(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    info: &DriverInfo,
    props: &vk::PhysicalDeviceProperties,
) -> Result<Caps> {
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
    Ok(caps)
}

/// The logical device with one compute queue and the features `caps` allows; with the queue's
/// family index.
fn create_device(
    instance: &ash::Instance,
    pdev: vk::PhysicalDevice,
    info: &DriverInfo,
    caps: &Caps,
) -> Result<(ash::Device, u32)> {
    let qfi = unsafe { instance.get_physical_device_queue_family_properties(pdev) }
        .iter()
        .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or_else(|| anyhow!("{}: no compute queue", info.device_name))? as u32;
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
    let device = unsafe { instance.create_device(pdev, &dci, None) }.context("vkCreateDevice")?;
    Ok((device, qfi))
}

/// The descriptor set layout (binding 0: the combined image sampler; 1, 2: the query and result
/// buffers) and the pipeline layout (with a 4-byte push constant: the query count).
fn create_layouts(device: &ash::Device) -> Result<(vk::DescriptorSetLayout, vk::PipelineLayout)> {
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
    Ok((dsl, layout))
}

/// A fresh directory for the shader source and its SPIR-V, with the source written.
fn make_shader_dir() -> Result<PathBuf> {
    // One directory per Gpu (several may be open in one process: `bench`).
    static OPENED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = OPENED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let shader_dir = std::env::temp_dir().join(format!("tld4-lavapipe-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&shader_dir)
        .with_context(|| format!("creating {}", shader_dir.display()))?;
    std::fs::write(shader_dir.join("gather.comp"), SHADER).context("writing the shader source")?;
    Ok(shader_dir)
}
