//! The typed facts of an error for C (`tld4_error::detail`): what was being read (texture
//! header i, sampler j, a texel) and at which address, the handle, and the typed reason of a
//! "not modeled" (the descriptor or instruction field and its value), so that a simulator
//! maps every failure without reading the message. Built from tld4-emu's typed errors.

use std::ffi::{c_char, CString};
use std::sync::OnceLock;

use tld4_emu::gpu_memory::descriptor::tic::{TEXHEAD_V2_BL, TEXHEAD_V2_PITCH};
use tld4_emu::gpu_memory::descriptor::tsc::TEXSAMP;
use tld4_emu::gpu_memory::{DescriptorError, MemTexError};
use tld4_emu::textures::MemoryError;
use tld4_emu::{Handle, MemoryExecError, MemoryRead, NotModeledReason, WarpFault};

use crate::error::Error;

/// What a failed call was reading (`tld4_error_detail::read`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_read {
    /// Nothing, or not known.
    TLD4_READ_NONE = 0,
    /// Texture header `index` (the handle's bits 19:0).
    TLD4_READ_TEXTURE_HEADER = 1,
    /// Sampler `index` (the handle's bits 31:20).
    TLD4_READ_SAMPLER = 2,
    /// A footprint texel.
    TLD4_READ_TEXEL = 3,
    /// The constant a constant-bank TLD4 reads its handle from: `index` is the bank,
    /// `address` the byte offset in it.
    TLD4_READ_CONSTANT = 4,
}

/// The kind of reason of a "not modeled" (`tld4_error_detail::not_modeled`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum tld4_not_modeled {
    /// Not a "not modeled".
    TLD4_NOT_MODELED_NONE = 0,
    /// A texture-header or sampler field: `field` (clcd97tex.h's name, docs/descriptors.md)
    /// and its raw `value`.
    TLD4_NOT_MODELED_DESCRIPTOR = 1,
    /// An instruction field (`field`, as docs/fields.md names it) with this texture, or a
    /// field value of a valid instruction whose effect is unknown (`field` and its raw
    /// `value`: `.UAI`, a second uniform register, `UAOFFI`, ...).
    TLD4_NOT_MODELED_INSTRUCTION = 2,
    /// The texture unit's reason (dimension, offsets or depth compare against the texture
    /// and sampler); the message says which.
    TLD4_NOT_MODELED_TEXTURE = 3,
    /// An owned texture the memory form cannot express; the message says what.
    TLD4_NOT_MODELED_UNREPRESENTABLE = 4,
    /// A reason this version of the C interface does not name.
    TLD4_NOT_MODELED_OTHER = 255,
}

/// The typed facts of an error (`tld4_error::detail`); every member is 0 / NULL /
/// `*_NONE` where it does not apply.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tld4_error_detail {
    /// What was being read.
    pub read: tld4_read,
    /// The texture header or sampler index read (with `TLD4_READ_TEXTURE_HEADER` or
    /// `TLD4_READ_SAMPLER`).
    pub index: u32,
    /// The handle the lane used (where a handle was involved), else 0.
    pub handle: u32,
    /// The first byte of a read that failed (`TLD4_ERR_MEMORY`), else 0.
    pub address: u64,
    /// With `TLD4_READ_TEXEL`: the storage layer of the texel whose read failed (cube kinds:
    /// cube * 6 + face), else 0.
    pub layer: u32,
    /// With `TLD4_READ_TEXEL`: the texel's column (after wrapping), else 0.
    pub x: u32,
    /// With `TLD4_READ_TEXEL`: the texel's row (after wrapping), else 0.
    pub y: u32,
    /// The kind of reason of a "not modeled" (also for `TLD4_ERR_NOT_MODELED` from
    /// `tld4_tic_*`).
    pub not_modeled: tld4_not_modeled,
    /// The field concerned, a static string (never free it): a descriptor field (an illegal
    /// or unmodeled value) or an instruction field; NULL where none.
    pub field: *const c_char,
    /// The field's raw value (descriptor fields).
    pub value: u64,
}

impl tld4_error_detail {
    /// Nothing to say.
    pub const NONE: Self = tld4_error_detail {
        read: tld4_read::TLD4_READ_NONE,
        index: 0,
        handle: 0,
        address: 0,
        layer: 0,
        x: 0,
        y: 0,
        not_modeled: tld4_not_modeled::TLD4_NOT_MODELED_NONE,
        field: std::ptr::null(),
        value: 0,
    };
}

/// Static NUL-terminated names: every descriptor table's fields and the instruction fields a
/// reason names, built once from the tables (a list, searched on error paths only; a list
/// rather than a hash map, whose interior pointers valgrind reports as possibly lost).
fn field_name(name: &str) -> *const c_char {
    static NAMES: OnceLock<Vec<(&'static str, CString)>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            TEXHEAD_V2_BL
                .iter()
                .chain(TEXHEAD_V2_PITCH)
                .chain(TEXSAMP)
                .map(|f| f.name)
                .chain(["f16_mode"])
                // The instruction's fields, the families' rows included.
                .chain(tld4_emu::decoder::FIELDS.iter().map(|f| f.name))
                .chain(tld4_emu::decoder::FAMILY_ROWS.iter().map(|r| r.spec.name))
                .filter_map(|n| CString::new(n).ok().map(|c| (n, c)))
                .collect()
        })
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(std::ptr::null(), |(_, c)| c.as_ptr())
}

/// The read kind of a descriptor's name.
fn read_of(descriptor: &str) -> tld4_read {
    match descriptor {
        "sampler" => tld4_read::TLD4_READ_SAMPLER,
        _ => tld4_read::TLD4_READ_TEXTURE_HEADER,
    }
}

/// The index a read of `read` used, from the handle.
fn index_of(read: tld4_read, handle: u32) -> u32 {
    match read {
        tld4_read::TLD4_READ_TEXTURE_HEADER => Handle(handle).header_index(),
        tld4_read::TLD4_READ_SAMPLER => Handle(handle).sampler_index(),
        _ => 0,
    }
}

fn address_of(e: &MemoryError) -> u64 {
    match *e {
        MemoryError::Unmapped { addr, .. } | MemoryError::Overflow { addr, .. } => addr,
        MemoryError::EntryPastEnd { pool, index, .. } => {
            pool.wrapping_add(32u64.wrapping_mul(index as u64))
        }
    }
}

fn descriptor(d: &DescriptorError) -> tld4_error_detail {
    let (DescriptorError::Invalid {
        descriptor,
        field,
        value,
        ..
    }
    | DescriptorError::NotModeled {
        descriptor,
        field,
        value,
        ..
    }) = d;
    tld4_error_detail {
        read: read_of(descriptor),
        field: field_name(field),
        value: *value,
        not_modeled: if d.is_not_modeled() {
            tld4_not_modeled::TLD4_NOT_MODELED_DESCRIPTOR
        } else {
            tld4_not_modeled::TLD4_NOT_MODELED_NONE
        },
        ..tld4_error_detail::NONE
    }
}

fn fault(f: &WarpFault) -> tld4_error_detail {
    use tld4_not_modeled::*;
    match f {
        WarpFault::UnknownTextureHeader { handle, .. } => tld4_error_detail {
            read: tld4_read::TLD4_READ_TEXTURE_HEADER,
            index: Handle(*handle).header_index(),
            handle: *handle,
            ..tld4_error_detail::NONE
        },
        WarpFault::UnknownSampler { handle, .. } => tld4_error_detail {
            read: tld4_read::TLD4_READ_SAMPLER,
            index: Handle(*handle).sampler_index(),
            handle: *handle,
            ..tld4_error_detail::NONE
        },
        WarpFault::InvalidTexture { handle, .. } => tld4_error_detail {
            handle: *handle,
            ..tld4_error_detail::NONE
        },
        WarpFault::NotModeled { reason, .. } => match reason {
            NotModeledReason::Descriptor {
                handle,
                descriptor,
                field,
                value,
                ..
            } => {
                let read = read_of(descriptor);
                tld4_error_detail {
                    read,
                    index: index_of(read, *handle),
                    handle: *handle,
                    not_modeled: TLD4_NOT_MODELED_DESCRIPTOR,
                    field: field_name(field),
                    value: *value,
                    ..tld4_error_detail::NONE
                }
            }
            NotModeledReason::Instruction { field, .. } => tld4_error_detail {
                not_modeled: TLD4_NOT_MODELED_INSTRUCTION,
                field: field_name(field),
                ..tld4_error_detail::NONE
            },
            NotModeledReason::Form { field, value, .. } => tld4_error_detail {
                not_modeled: TLD4_NOT_MODELED_INSTRUCTION,
                field: field_name(field),
                value: *value as u64,
                ..tld4_error_detail::NONE
            },
            NotModeledReason::Texture(_) => tld4_error_detail {
                not_modeled: TLD4_NOT_MODELED_TEXTURE,
                ..tld4_error_detail::NONE
            },
            NotModeledReason::Unrepresentable { handle, .. } => tld4_error_detail {
                handle: *handle,
                not_modeled: TLD4_NOT_MODELED_UNREPRESENTABLE,
                ..tld4_error_detail::NONE
            },
            _ => tld4_error_detail {
                not_modeled: TLD4_NOT_MODELED_OTHER,
                ..tld4_error_detail::NONE
            },
        },
        _ => tld4_error_detail::NONE,
    }
}

/// The detail of an error.
pub(crate) fn of(e: &Error) -> tld4_error_detail {
    match e {
        Error::Fault(f)
        | Error::MemExec {
            source: MemoryExecError::Fault(f),
            ..
        } => fault(f),
        Error::MemExec {
            source: MemoryExecError::BadDescriptor { handle, source, .. },
            ..
        } => {
            let d = descriptor(source);
            tld4_error_detail {
                index: index_of(d.read, *handle),
                handle: *handle,
                ..d
            }
        }
        Error::MemExec {
            source:
                MemoryExecError::Memory {
                    handle,
                    read,
                    source,
                    ..
                },
            ..
        } => {
            let (kind, (layer, x, y)) = match *read {
                MemoryRead::TextureHeader => (tld4_read::TLD4_READ_TEXTURE_HEADER, (0, 0, 0)),
                MemoryRead::Sampler => (tld4_read::TLD4_READ_SAMPLER, (0, 0, 0)),
                MemoryRead::Texel { layer, x, y } => (tld4_read::TLD4_READ_TEXEL, (layer, x, y)),
            };
            tld4_error_detail {
                read: kind,
                index: index_of(kind, *handle),
                handle: *handle,
                address: address_of(source),
                layer,
                x,
                y,
                ..tld4_error_detail::NONE
            }
        }
        Error::Descriptor { source, .. }
        | Error::Memory {
            source: MemTexError::Descriptor(source),
            ..
        } => descriptor(source),
        Error::Memory {
            source: MemTexError::Memory(m),
            texel,
            ..
        } => match *texel {
            Some(MemoryRead::Texel { layer, x, y }) => tld4_error_detail {
                read: tld4_read::TLD4_READ_TEXEL,
                address: address_of(m),
                layer,
                x,
                y,
                ..tld4_error_detail::NONE
            },
            _ => tld4_error_detail {
                address: address_of(m),
                ..tld4_error_detail::NONE
            },
        },
        Error::Arch(tld4_emu::ArchExecError::NoConstant { bank, offset }) => tld4_error_detail {
            read: tld4_read::TLD4_READ_CONSTANT,
            index: u32::from(*bank),
            address: u64::from(*offset),
            ..tld4_error_detail::NONE
        },
        Error::Decode(d) => decode(d),
        _ => tld4_error_detail::NONE,
    }
}

/// An illegal encoding's field (the decoder's field names, docs/fields.md) and its raw
/// value: the opcode in `form`, a clear `bit_91`, the scheduling pair in `usched_info` (its
/// value; `batch_t` is in the message), an architecture's required bits as `required_bits`.
fn decode(d: &tld4_emu::decoder::DecodeError) -> tld4_error_detail {
    use tld4_emu::decoder::DecodeError as D;
    let (field, value): (&'static std::ffi::CStr, u64) = match d {
        D::NotTld4 { opcode }
        | D::NotTld4OnArch { opcode, .. }
        | D::FormNotModeled { opcode, .. } => (c"form", u64::from(*opcode)),
        D::Bit91Clear => (c"bit_91", 0),
        D::UndefinedOpex { usched_info, .. } => (c"usched_info", u64::from(*usched_info)),
        D::RequiredBits { value, .. } => (c"required_bits", u64::from(*value)),
    };
    tld4_error_detail {
        field: field.as_ptr(),
        value,
        ..tld4_error_detail::NONE
    }
}
