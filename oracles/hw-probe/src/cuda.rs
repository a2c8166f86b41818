//! The few CUDA driver API calls the probe needs, loaded from libcuda at run time with
//! `libloading`, so that the probe builds and its tests run where no driver is installed.
//!
//! Every struct below is `#[repr(C)]` after `cuda.h` of CUDA 13.5 (the `nvidia-cuda-nvcc` wheel's
//! `include/cuda.h`); their sizes were printed there with gcc (`sizeof`) and are pinned by the
//! tests at the end. The `_v2` entry points are the ones `cuda.h` maps the plain names to.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::fmt;

use libloading::Library;

/// CUresult.
pub type CuResult = c_int;
/// CUdeviceptr (unsigned long long on 64-bit hosts).
pub type DevPtr = u64;
/// CUtexObject (unsigned long long).
pub type TexObject = u64;
type Handle = *mut c_void;

/// `CUDA_ARRAY3D_DESCRIPTOR` (40 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Array3dDescriptor {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub format: c_uint,
    pub num_channels: c_uint,
    pub flags: c_uint,
}

/// `CUDA_MEMCPY3D` (200 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Memcpy3d {
    pub src_x_in_bytes: usize,
    pub src_y: usize,
    pub src_z: usize,
    pub src_lod: usize,
    pub src_memory_type: c_uint,
    pub src_host: *const c_void,
    pub src_device: DevPtr,
    pub src_array: Handle,
    pub reserved0: *mut c_void,
    pub src_pitch: usize,
    pub src_height: usize,
    pub dst_x_in_bytes: usize,
    pub dst_y: usize,
    pub dst_z: usize,
    pub dst_lod: usize,
    pub dst_memory_type: c_uint,
    pub dst_host: *mut c_void,
    pub dst_device: DevPtr,
    pub dst_array: Handle,
    pub reserved1: *mut c_void,
    pub dst_pitch: usize,
    pub dst_height: usize,
    pub width_in_bytes: usize,
    pub height: usize,
    pub depth: usize,
}

/// `CUDA_RESOURCE_DESC` (144 bytes) for `CU_RESOURCE_TYPE_ARRAY`: the union's first member is
/// the array handle; the rest of the 128-byte union is padding (`reserved[32]` ints).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDesc {
    pub res_type: c_uint,
    pub h_array: Handle,
    pub pad: [u8; 120],
    pub flags: c_uint,
}

/// `CUDA_TEXTURE_DESC` (104 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TextureDesc {
    pub address_mode: [c_uint; 3],
    pub filter_mode: c_uint,
    pub flags: c_uint,
    pub max_anisotropy: c_uint,
    pub mipmap_filter_mode: c_uint,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub border_color: [f32; 4],
    pub reserved: [c_int; 12],
}

// Constants from cuda.h (CUDA 13.5), printed there with gcc.
/// `CU_AD_FORMAT_UNSIGNED_INT8`.
pub const FMT_U8: c_uint = 1;
/// `CU_AD_FORMAT_UNSIGNED_INT16`.
pub const FMT_U16: c_uint = 2;
/// `CU_AD_FORMAT_UNSIGNED_INT32`.
pub const FMT_U32: c_uint = 3;
/// `CU_AD_FORMAT_SIGNED_INT8`.
pub const FMT_S8: c_uint = 8;
/// `CU_AD_FORMAT_SIGNED_INT16`.
pub const FMT_S16: c_uint = 9;
/// `CU_AD_FORMAT_SIGNED_INT32`.
pub const FMT_S32: c_uint = 10;
/// `CU_AD_FORMAT_HALF`.
pub const FMT_HALF: c_uint = 16;
/// `CU_AD_FORMAT_FLOAT`.
pub const FMT_FLOAT: c_uint = 32;
/// `CU_TR_ADDRESS_MODE_WRAP`, `_CLAMP`, `_MIRROR`, `_BORDER`.
pub const ADDR_WRAP: c_uint = 0;
pub const ADDR_CLAMP: c_uint = 1;
pub const ADDR_MIRROR: c_uint = 2;
pub const ADDR_BORDER: c_uint = 3;
/// `CU_TR_FILTER_MODE_POINT`, `_LINEAR`.
pub const FILTER_POINT: c_uint = 0;
pub const FILTER_LINEAR: c_uint = 1;
/// `CU_TRSF_READ_AS_INTEGER`.
pub const TRSF_READ_AS_INTEGER: c_uint = 1;
/// `CU_TRSF_NORMALIZED_COORDINATES`.
pub const TRSF_NORMALIZED_COORDINATES: c_uint = 2;
/// `CU_TRSF_SEAMLESS_CUBEMAP`.
pub const TRSF_SEAMLESS_CUBEMAP: c_uint = 64;
/// `CUDA_ARRAY3D_LAYERED`, `_CUBEMAP`, `_TEXTURE_GATHER`, `_SPARSE`.
pub const ARRAY_LAYERED: c_uint = 0x01;
pub const ARRAY_CUBEMAP: c_uint = 0x04;
pub const ARRAY_TEXTURE_GATHER: c_uint = 0x08;
pub const ARRAY_SPARSE: c_uint = 0x40;
/// `CU_MEMORYTYPE_HOST`, `CU_MEMORYTYPE_ARRAY`.
const MEMTYPE_HOST: c_uint = 1;
const MEMTYPE_ARRAY: c_uint = 3;
/// `CU_RESOURCE_TYPE_ARRAY`.
const RESOURCE_TYPE_ARRAY: c_uint = 0;
/// `CU_RESOURCE_TYPE_PITCH2D`.
const RESOURCE_TYPE_PITCH2D: c_uint = 3;
/// `CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT`.
pub const ATTR_TEXTURE_PITCH_ALIGNMENT: c_int = 14;
/// Device attributes (`CUdevice_attribute`).
pub const ATTR_CC_MAJOR: c_int = 75;
pub const ATTR_CC_MINOR: c_int = 76;
pub const ATTR_SPARSE_ARRAY: c_int = 112;
pub const ATTR_TEX2D_GATHER_WIDTH: c_int = 45;
pub const ATTR_MP_COUNT: c_int = 16;

/// A failed driver call: which call, and the driver's name for the error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaError {
    /// The entry point.
    pub call: &'static str,
    /// The CUresult.
    pub code: c_int,
    /// `cuGetErrorName`'s text, e.g. `CUDA_ERROR_ILLEGAL_INSTRUCTION`.
    pub name: String,
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {} ({})", self.call, self.name, self.code)
    }
}
impl std::error::Error for CudaError {}

macro_rules! api {
    ( $( $field:ident : $sym:literal => fn($($arg:ty),*) ; )* ) => {
        struct Api { $( $field: unsafe extern "C" fn($($arg),*) -> CuResult, )* }
        impl Api {
            unsafe fn load(lib: &Library) -> Result<Self, String> {
                Ok(Self { $( $field: *lib.get::<unsafe extern "C" fn($($arg),*) -> CuResult>(concat!($sym, "\0").as_bytes())
                    .map_err(|e| format!("libcuda has no {}: {e}", $sym))?, )* })
            }
        }
    };
}

api! {
    init: "cuInit" => fn(c_uint);
    driver_get_version: "cuDriverGetVersion" => fn(*mut c_int);
    device_get: "cuDeviceGet" => fn(*mut c_int, c_int);
    device_get_name: "cuDeviceGetName" => fn(*mut c_char, c_int, c_int);
    device_get_attribute: "cuDeviceGetAttribute" => fn(*mut c_int, c_int, c_int);
    primary_ctx_retain: "cuDevicePrimaryCtxRetain" => fn(*mut Handle, c_int);
    ctx_set_current: "cuCtxSetCurrent" => fn(Handle);
    ctx_synchronize: "cuCtxSynchronize" => fn();
    get_error_name: "cuGetErrorName" => fn(CuResult, *mut *const c_char);
    mem_alloc: "cuMemAlloc_v2" => fn(*mut DevPtr, usize);
    mem_free: "cuMemFree_v2" => fn(DevPtr);
    memcpy_htod: "cuMemcpyHtoD_v2" => fn(DevPtr, *const c_void, usize);
    memcpy_dtoh: "cuMemcpyDtoH_v2" => fn(*mut c_void, DevPtr, usize);
    memset_d32: "cuMemsetD32_v2" => fn(DevPtr, c_uint, usize);
    array3d_create: "cuArray3DCreate_v2" => fn(*mut Handle, *const Array3dDescriptor);
    array_destroy: "cuArrayDestroy" => fn(Handle);
    memcpy3d: "cuMemcpy3D_v2" => fn(*const Memcpy3d);
    tex_object_create: "cuTexObjectCreate" => fn(*mut TexObject, *const ResourceDesc, *const TextureDesc, *const c_void);
    tex_object_destroy: "cuTexObjectDestroy" => fn(TexObject);
    module_load_data: "cuModuleLoadData" => fn(*mut Handle, *const c_void);
    module_unload: "cuModuleUnload" => fn(Handle);
    module_get_function: "cuModuleGetFunction" => fn(*mut Handle, Handle, *const c_char);
    link_create: "cuLinkCreate_v2" => fn(c_uint, *mut c_int, *mut *mut c_void, *mut Handle);
    link_add_data: "cuLinkAddData_v2" => fn(Handle, c_int, *mut c_void, usize, *const c_char, c_uint, *mut c_int, *mut *mut c_void);
    link_complete: "cuLinkComplete" => fn(Handle, *mut *mut c_void, *mut usize);
    link_destroy: "cuLinkDestroy" => fn(Handle);
    launch_kernel: "cuLaunchKernel" => fn(Handle, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, Handle, *mut *mut c_void, *mut *mut c_void);
}

/// The names libcuda goes by (the driver installs `libcuda.so.1`; `libcuda.so` only comes
/// with development packages).
pub const LIBCUDA_NAMES: [&str; 2] = ["libcuda.so.1", "libcuda.so"];

/// An initialised driver with the primary context of device 0 current.
pub struct Cuda {
    api: Api,
    /// Never closed: unloading libcuda while its contexts live can crash at exit.
    _lib: &'static Library,
    /// Device 0.
    pub device: c_int,
}

/// `CUjit_option` values (cuda.h): the info and error log buffers and their sizes.
const JIT_INFO_LOG_BUFFER: c_int = 3;
const JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
const JIT_ERROR_LOG_BUFFER: c_int = 5;
const JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;
/// `CUjitInputType::CU_JIT_INPUT_PTX` (cuda.h).
const JIT_INPUT_PTX: c_int = 1;
/// Bytes of each JIT log buffer.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// What the driver's JIT compiler made of a PTX text.
pub struct Jitted {
    /// The module, loaded.
    pub module: Module,
    /// The cubin the driver compiled for the current device (`cuLinkComplete`'s image).
    pub cubin: Vec<u8>,
    /// The JIT's info log.
    pub info_log: String,
}

/// A failed JIT compilation: the driver call and its error log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitError {
    /// The failed call.
    pub error: CudaError,
    /// The JIT's error log (empty when the driver wrote none).
    pub log: String,
}

impl fmt::Display for JitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.error)?;
        if !self.log.is_empty() {
            write!(f, ": {}", self.log.trim_end())?;
        }
        Ok(())
    }
}
impl std::error::Error for JitError {}

fn log_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// A CUDA array.
pub struct Array(pub Handle);
/// A loaded module.
pub struct Module(pub Handle);
/// A kernel of a module.
#[derive(Clone, Copy)]
pub struct Function(pub Handle);

impl Cuda {
    /// Opens libcuda (from `$TLD4_LIBCUDA` when set) and makes device 0's primary context current.
    /// The error says plainly when there is no driver.
    pub fn open() -> Result<Self, String> {
        let names: Vec<String> = match std::env::var("TLD4_LIBCUDA") {
            Ok(p) => vec![p],
            Err(_) => LIBCUDA_NAMES.iter().map(|s| s.to_string()).collect(),
        };
        let mut errs = Vec::new();
        let lib = names
            .iter()
            .find_map(|n| match unsafe { Library::new(n) } {
                Ok(l) => Some(l),
                Err(e) => {
                    errs.push(format!("{n}: {e}"));
                    None
                }
            })
            .ok_or_else(|| {
                format!(
                    "no libcuda: the NVIDIA driver is not installed here ({})",
                    errs.join("; ")
                )
            })?;
        let lib: &'static Library = Box::leak(Box::new(lib));
        let api = unsafe { Api::load(lib)? };
        let mut cuda = Cuda {
            api,
            _lib: lib,
            device: 0,
        };
        cuda.check("cuInit", unsafe { (cuda.api.init)(0) })
            .map_err(|e| e.to_string())?;
        let mut dev = 0;
        cuda.check("cuDeviceGet", unsafe { (cuda.api.device_get)(&mut dev, 0) })
            .map_err(|e| e.to_string())?;
        cuda.device = dev;
        let mut ctx: Handle = std::ptr::null_mut();
        cuda.check("cuDevicePrimaryCtxRetain", unsafe {
            (cuda.api.primary_ctx_retain)(&mut ctx, dev)
        })
        .map_err(|e| e.to_string())?;
        cuda.check("cuCtxSetCurrent", unsafe {
            (cuda.api.ctx_set_current)(ctx)
        })
        .map_err(|e| e.to_string())?;
        Ok(cuda)
    }

    fn check(&self, call: &'static str, r: CuResult) -> Result<(), CudaError> {
        if r == 0 {
            return Ok(());
        }
        let mut p: *const c_char = std::ptr::null();
        let name = if unsafe { (self.api.get_error_name)(r, &mut p) } == 0 && !p.is_null() {
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        } else {
            format!("CUresult {r}")
        };
        Err(CudaError {
            call,
            code: r,
            name,
        })
    }

    /// `cuDriverGetVersion` (e.g. 12040 for CUDA 12.4).
    pub fn driver_version(&self) -> Result<i32, CudaError> {
        let mut v = 0;
        self.check("cuDriverGetVersion", unsafe {
            (self.api.driver_get_version)(&mut v)
        })?;
        Ok(v)
    }

    /// `cuDeviceGetName`.
    pub fn device_name(&self) -> Result<String, CudaError> {
        let mut buf = [0 as c_char; 256];
        self.check("cuDeviceGetName", unsafe {
            (self.api.device_get_name)(buf.as_mut_ptr(), 256, self.device)
        })?;
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// `cuDeviceGetAttribute`.
    pub fn attribute(&self, attr: c_int) -> Result<i32, CudaError> {
        let mut v = 0;
        self.check("cuDeviceGetAttribute", unsafe {
            (self.api.device_get_attribute)(&mut v, attr, self.device)
        })?;
        Ok(v)
    }

    /// A device buffer holding `data`.
    pub fn upload(&self, data: &[u32]) -> Result<DevPtr, CudaError> {
        let bytes = std::mem::size_of_val(data).max(4);
        let mut p = 0;
        self.check("cuMemAlloc_v2", unsafe {
            (self.api.mem_alloc)(&mut p, bytes)
        })?;
        if !data.is_empty() {
            self.check("cuMemcpyHtoD_v2", unsafe {
                (self.api.memcpy_htod)(p, data.as_ptr().cast(), bytes)
            })?;
        }
        Ok(p)
    }

    /// A device buffer of `words` u32, every one set to `fill`.
    pub fn alloc_filled(&self, words: usize, fill: u32) -> Result<DevPtr, CudaError> {
        let mut p = 0;
        self.check("cuMemAlloc_v2", unsafe {
            (self.api.mem_alloc)(&mut p, words.max(1) * 4)
        })?;
        self.check("cuMemsetD32_v2", unsafe {
            (self.api.memset_d32)(p, fill, words.max(1))
        })?;
        Ok(p)
    }

    /// Copies `words` u32 back from the device.
    pub fn download(&self, p: DevPtr, words: usize) -> Result<Vec<u32>, CudaError> {
        let mut v = vec![0u32; words];
        if words > 0 {
            self.check("cuMemcpyDtoH_v2", unsafe {
                (self.api.memcpy_dtoh)(v.as_mut_ptr().cast(), p, words * 4)
            })?;
        }
        Ok(v)
    }

    /// `cuMemFree_v2`.
    pub fn free(&self, p: DevPtr) -> Result<(), CudaError> {
        self.check("cuMemFree_v2", unsafe { (self.api.mem_free)(p) })
    }

    /// `cuArray3DCreate_v2` (Depth = 0 makes a 2D array).
    pub fn array_create(&self, d: &Array3dDescriptor) -> Result<Array, CudaError> {
        let mut a: Handle = std::ptr::null_mut();
        self.check("cuArray3DCreate_v2", unsafe {
            (self.api.array3d_create)(&mut a, d)
        })?;
        Ok(Array(a))
    }

    /// Fills a whole array from host bytes, rows of `row_bytes`, `rows` rows per layer, `layers`
    /// layers (1 for a 2D array).
    pub fn array_fill(
        &self,
        a: &Array,
        bytes: &[u8],
        row_bytes: usize,
        rows: usize,
        layers: usize,
    ) -> Result<(), CudaError> {
        assert_eq!(bytes.len(), row_bytes * rows * layers, "texel data size");
        let m = Memcpy3d {
            src_x_in_bytes: 0,
            src_y: 0,
            src_z: 0,
            src_lod: 0,
            src_memory_type: MEMTYPE_HOST,
            src_host: bytes.as_ptr().cast(),
            src_device: 0,
            src_array: std::ptr::null_mut(),
            reserved0: std::ptr::null_mut(),
            src_pitch: row_bytes,
            src_height: rows,
            dst_x_in_bytes: 0,
            dst_y: 0,
            dst_z: 0,
            dst_lod: 0,
            dst_memory_type: MEMTYPE_ARRAY,
            dst_host: std::ptr::null_mut(),
            dst_device: 0,
            dst_array: a.0,
            reserved1: std::ptr::null_mut(),
            dst_pitch: 0,
            dst_height: 0,
            width_in_bytes: row_bytes,
            height: rows,
            depth: layers,
        };
        self.check("cuMemcpy3D_v2", unsafe { (self.api.memcpy3d)(&m) })
    }

    /// `cuArrayDestroy`.
    pub fn array_destroy(&self, a: Array) -> Result<(), CudaError> {
        self.check("cuArrayDestroy", unsafe { (self.api.array_destroy)(a.0) })
    }

    /// `cuTexObjectCreate` on a whole array.
    pub fn tex_object(&self, a: &Array, desc: &TextureDesc) -> Result<TexObject, CudaError> {
        let res = ResourceDesc {
            res_type: RESOURCE_TYPE_ARRAY,
            h_array: a.0,
            pad: [0; 120],
            flags: 0,
        };
        let mut t = 0;
        self.check("cuTexObjectCreate", unsafe {
            (self.api.tex_object_create)(&mut t, &res, desc, std::ptr::null())
        })?;
        Ok(t)
    }

    /// `cuTexObjectCreate` on pitch-linear device memory (`CU_RESOURCE_TYPE_PITCH2D`: the
    /// union holds devPtr at byte 8, format at 16, numChannels at 20, width, height and
    /// pitchInBytes at 24, 32, 40, as in cuda.h's `res.pitch2D`).
    #[allow(clippy::too_many_arguments)]
    pub fn tex_object_pitch2d(
        &self,
        dev: DevPtr,
        format: c_uint,
        channels: c_uint,
        width: usize,
        height: usize,
        pitch: usize,
        desc: &TextureDesc,
    ) -> Result<TexObject, CudaError> {
        let mut pad = [0u8; 120];
        pad[0..4].copy_from_slice(&format.to_ne_bytes());
        pad[4..8].copy_from_slice(&channels.to_ne_bytes());
        pad[8..16].copy_from_slice(&(width as u64).to_ne_bytes());
        pad[16..24].copy_from_slice(&(height as u64).to_ne_bytes());
        pad[24..32].copy_from_slice(&(pitch as u64).to_ne_bytes());
        let res = ResourceDesc {
            res_type: RESOURCE_TYPE_PITCH2D,
            h_array: dev as usize as Handle,
            pad,
            flags: 0,
        };
        let mut t = 0;
        self.check("cuTexObjectCreate", unsafe {
            (self.api.tex_object_create)(&mut t, &res, desc, std::ptr::null())
        })?;
        Ok(t)
    }

    /// `cuTexObjectDestroy`.
    pub fn tex_destroy(&self, t: TexObject) -> Result<(), CudaError> {
        self.check("cuTexObjectDestroy", unsafe {
            (self.api.tex_object_destroy)(t)
        })
    }

    /// `cuModuleLoadData` of a cubin image.
    pub fn load_module(&self, image: &[u8]) -> Result<Module, CudaError> {
        // The driver reads the ELF from memory; keep it 8-byte aligned, as ELF64 headers are.
        let mut aligned = vec![0u64; image.len().div_ceil(8)];
        unsafe {
            std::ptr::copy_nonoverlapping(
                image.as_ptr(),
                aligned.as_mut_ptr().cast::<u8>(),
                image.len(),
            )
        };
        let mut m: Handle = std::ptr::null_mut();
        self.check("cuModuleLoadData", unsafe {
            (self.api.module_load_data)(&mut m, aligned.as_ptr().cast())
        })?;
        Ok(Module(m))
    }

    /// Compiles PTX text for the current device with the driver's JIT compiler (no ptxas:
    /// `cuLinkCreate`, `cuLinkAddData` with `CU_JIT_INPUT_PTX`, `cuLinkComplete`), loads the
    /// cubin it made and returns it with the module, so the run can record the SASS the
    /// driver chose for this GPU.
    pub fn jit_ptx(&self, ptx: &str) -> Result<Jitted, JitError> {
        let mut info = vec![0u8; JIT_LOG_BYTES];
        let mut err = vec![0u8; JIT_LOG_BYTES];
        let mut opts = [
            JIT_INFO_LOG_BUFFER,
            JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            JIT_ERROR_LOG_BUFFER,
            JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // Sizes are passed in the pointer-sized option value itself (cuda.h, CUjit_option).
        let mut vals: [*mut c_void; 4] = [
            info.as_mut_ptr().cast(),
            JIT_LOG_BYTES as *mut c_void,
            err.as_mut_ptr().cast(),
            JIT_LOG_BYTES as *mut c_void,
        ];
        let mut state: Handle = std::ptr::null_mut();
        let fail = |error: CudaError, err: &[u8]| JitError {
            error,
            log: log_text(err),
        };
        self.check("cuLinkCreate", unsafe {
            (self.api.link_create)(4, opts.as_mut_ptr(), vals.as_mut_ptr(), &mut state)
        })
        .map_err(|e| fail(e, &err))?;
        let mut text = ptx.as_bytes().to_vec();
        text.push(0);
        let name = c"tld4_probe.portable.ptx";
        let r = self
            .check("cuLinkAddData", unsafe {
                (self.api.link_add_data)(
                    state,
                    JIT_INPUT_PTX,
                    text.as_mut_ptr().cast(),
                    text.len(),
                    name.as_ptr(),
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                )
            })
            .and_then(|_| {
                let mut image: *mut c_void = std::ptr::null_mut();
                let mut size = 0usize;
                self.check("cuLinkComplete", unsafe {
                    (self.api.link_complete)(state, &mut image, &mut size)
                })?;
                // The image belongs to the link state: copy it before cuLinkDestroy.
                Ok(unsafe { std::slice::from_raw_parts(image.cast::<u8>(), size) }.to_vec())
            });
        let _ = unsafe { (self.api.link_destroy)(state) };
        let cubin = r.map_err(|e| fail(e, &err))?;
        let module = self.load_module(&cubin).map_err(|e| fail(e, &err))?;
        Ok(Jitted {
            module,
            cubin,
            info_log: log_text(&info),
        })
    }

    /// `cuModuleUnload`.
    pub fn unload(&self, m: Module) -> Result<(), CudaError> {
        self.check("cuModuleUnload", unsafe { (self.api.module_unload)(m.0) })
    }

    /// `cuModuleGetFunction`.
    pub fn function(&self, m: &Module, name: &str) -> Result<Function, CudaError> {
        let c = std::ffi::CString::new(name).expect("kernel name");
        let mut f: Handle = std::ptr::null_mut();
        self.check("cuModuleGetFunction", unsafe {
            (self.api.module_get_function)(&mut f, m.0, c.as_ptr())
        })?;
        Ok(Function(f))
    }

    /// Runs a probe kernel `(tex, q, o, n)` over `n` threads, 128 per block, and waits.
    pub fn launch(
        &self,
        f: Function,
        tex: TexObject,
        q: DevPtr,
        o: DevPtr,
        n: u32,
    ) -> Result<(), CudaError> {
        let (mut tex, mut q, mut o, mut n_) = (tex, q, o, n);
        let mut params: [*mut c_void; 4] = [
            (&mut tex as *mut u64).cast(),
            (&mut q as *mut u64).cast(),
            (&mut o as *mut u64).cast(),
            (&mut n_ as *mut u32).cast(),
        ];
        let blocks = n.div_ceil(128).max(1);
        self.check("cuLaunchKernel", unsafe {
            (self.api.launch_kernel)(
                f.0,
                blocks,
                1,
                1,
                128,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        })?;
        self.check("cuCtxSynchronize", unsafe { (self.api.ctx_synchronize)() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sizes printed by gcc from CUDA 13.5's cuda.h: ARRAY3D_DESCRIPTOR 40, MEMCPY3D 200,
    /// RESOURCE_DESC 144 (res at 8, flags at 136), TEXTURE_DESC 104 (borderColor at 40).
    #[test]
    fn struct_layouts_match_cuda_h() {
        assert_eq!(std::mem::size_of::<Array3dDescriptor>(), 40);
        assert_eq!(std::mem::offset_of!(Array3dDescriptor, flags), 32);
        assert_eq!(std::mem::size_of::<Memcpy3d>(), 200);
        assert_eq!(std::mem::offset_of!(Memcpy3d, dst_array), 144);
        assert_eq!(std::mem::offset_of!(Memcpy3d, width_in_bytes), 176);
        assert_eq!(std::mem::offset_of!(Memcpy3d, src_pitch), 72);
        assert_eq!(std::mem::size_of::<ResourceDesc>(), 144);
        assert_eq!(std::mem::offset_of!(ResourceDesc, h_array), 8);
        assert_eq!(std::mem::offset_of!(ResourceDesc, flags), 136);
        assert_eq!(std::mem::size_of::<TextureDesc>(), 104);
        assert_eq!(std::mem::offset_of!(TextureDesc, border_color), 40);
    }

    #[test]
    fn missing_libcuda_is_a_clear_error() {
        std::env::set_var("TLD4_LIBCUDA", "/nonexistent/libcuda.so.1");
        let err = Cuda::open().err().expect("no driver at that path");
        std::env::remove_var("TLD4_LIBCUDA");
        assert!(err.starts_with("no libcuda"), "{err}");
    }
}
