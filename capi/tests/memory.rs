//! `tld4_mem_gather`: textures in GPU memory through a read callback equal the owned
//! textures they were laid out from, and each texel's address is where the pitch layout puts
//! it.

use std::ffi::{c_int, c_void, CString};
use std::ptr::{null, null_mut};

use tld4_capi::*;
use tld4_emu::gpu_memory::{pool_image, LayoutChoice, Memory, MemoryPool, SparseMemory};
use tld4_emu::textures::{AddressMode, GatherQuery};
use tld4_emu::{Format, Handle, Precision, Sampler, Texture, TextureDesc, TextureKind};

use tld4_status::*;

/// The read callback: 0 on success, 5 for an unmapped byte.
unsafe extern "C" fn read(user: *mut c_void, addr: u64, buf: *mut u8, len: usize) -> c_int {
    let mem = unsafe { &*(user as *const SparseMemory) };
    let out = unsafe { std::slice::from_raw_parts_mut(buf, len) };
    if mem.read(addr, out).is_ok() {
        0
    } else {
        5
    }
}

fn callback_memory(user: *mut c_void, read: Option<ReadFn>) -> tld4_memory {
    tld4_memory {
        kind: tld4_memory_kind::TLD4_MEMORY_CALLBACK as u32,
        base: 0,
        bytes: null(),
        len: 0,
        user,
        read,
    }
}

type ReadFn = unsafe extern "C" fn(*mut c_void, u64, *mut u8, usize) -> c_int;

fn insn(text: &str) -> *mut tld4_insn {
    let t = CString::new(text).unwrap();
    let mut i = null_mut();
    assert_eq!(
        unsafe { tld4_parse(t.as_ptr(), &mut i, null_mut()) },
        TLD4_OK
    );
    i
}

#[test]
fn memory_gathers_equal_owned_ones_with_pitch_addresses() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 5,
        height: 3,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [40 * x + y, 3 * y, x, 255]).unwrap();
    let smp = Sampler::with_address(AddressMode::ClampToBorder);
    let img = pool_image(
        &[(&tex, &smp, LayoutChoice::Pitch { row_alignment: 64 })],
        0x10_0000,
    )
    .unwrap();
    let base = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool)
        .resolve(Handle(0))
        .unwrap()
        .0
        .address;
    let mem = callback_memory(
        &img.memory as *const SparseMemory as *mut c_void,
        Some(read),
    );
    let i = insn("TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D ;");
    let queries: Vec<tld4_gather_query> = (0..32)
        .map(|l| tld4_gather_query {
            coords: [l as f32 / 24.0 - 0.1, (l % 5) as f32 / 4.0, 0.0],
            offsets: [[(l % 3) as i8 - 1, 0], [0; 2], [0; 2], [0; 2]],
            ..Default::default()
        })
        .collect();
    let blank = tld4_gather_result {
        values: [0; 4],
        resident: false,
        texels: [tld4_texel_address {
            kind: tld4_texel_kind::TLD4_TEXEL_NONE,
            bytes: 0,
            address: 0,
        }; 4],
    };
    let mut results = vec![blank; 32];
    let mut e = tld4_error::new();
    let st = unsafe {
        tld4_mem_gather(
            i,
            &mem,
            img.header_pool,
            img.sampler_pool,
            0,
            null(),
            queries.as_ptr(),
            32,
            results.as_mut_ptr(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_OK, "{}", e.message());
    let op = tld4_emu::gather_op(
        &tld4_emu::decoder::parse("TLD4.R.AOFFI R10, R8, R20, R24, UR4, 2D ;").unwrap(),
    )
    .unwrap();
    let owned = tld4_emu::textures::Gatherer::new(&tex, &smp, &op, Precision::default()).unwrap();
    let (mut borders, mut texels) = (0, 0);
    for (q, r) in queries.iter().zip(&results) {
        let gq = GatherQuery {
            coords: q.coords,
            layer: 0,
            offsets: q.offsets,
            dref: 0.0,
        };
        assert_eq!(r.values, owned.gather(&gq).values);
        assert!(r.resident);
        for (k, t) in r.texels.iter().enumerate() {
            match t.kind {
                tld4_texel_kind::TLD4_TEXEL_MEMORY => {
                    // Pitch layout: row y at base + 64 * y, 4 bytes a texel; the texel there
                    // holds the value gathered (R = 40 x + y, as UNORM).
                    let off = t.address - base;
                    let (x, y) = ((off % 64) / 4, off / 64);
                    assert_eq!(t.bytes, 4);
                    assert!(x < 5 && y < 3, "{off:#x}");
                    assert_eq!(r.values[k], (((40 * x + y) as f32) / 255.0).to_bits());
                    texels += 1;
                }
                tld4_texel_kind::TLD4_TEXEL_BORDER => {
                    assert_eq!(r.values[k], 0);
                    borders += 1;
                }
                other => panic!("{other:?}"),
            }
        }
    }
    assert!(borders > 0 && texels > 0, "{borders} {texels}");

    // A pool address with nothing mapped: an error naming the handle, nothing written.
    let mut untouched = vec![blank; 32];
    let st = unsafe {
        tld4_mem_gather(
            i,
            &mem,
            0x40,
            img.sampler_pool,
            0,
            null(),
            queries.as_ptr(),
            32,
            untouched.as_mut_ptr(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_MEMORY);
    assert!(
        e.message().starts_with("handle 0x00000000: memory:"),
        "{}",
        e.message()
    );
    assert!(
        e.message().ends_with(" (the read callback returned 5)"),
        "{}",
        e.message()
    );
    assert!(untouched.iter().all(|r| *r == blank));
    // NULL callback.
    let bad = callback_memory(null_mut(), None);
    let st = unsafe {
        tld4_mem_gather(
            i,
            &bad,
            0,
            0,
            0,
            null(),
            queries.as_ptr(),
            32,
            untouched.as_mut_ptr(),
            &mut e,
        )
    };
    assert_eq!(st, TLD4_ERR_NULL_POINTER);
    assert_eq!(e.message(), "memory.read is NULL");
    unsafe { tld4_insn_free(i) };
}

#[test]
fn a_failed_texel_read_names_the_texel() {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 5,
        height: 3,
        layers: 1,
    };
    let tex = Texture::from_fn(desc, |_, x, y| [x, y, 0, 255]).unwrap();
    let smp = Sampler::default();
    let img = pool_image(
        &[(&tex, &smp, LayoutChoice::Pitch { row_alignment: 64 })],
        0x10_0000,
    )
    .unwrap();
    let base = MemoryPool::new(&img.memory, img.header_pool, img.sampler_pool)
        .resolve(Handle(0))
        .unwrap()
        .0
        .address;
    // only the two descriptors are mapped: every texel read fails
    let mut pools = SparseMemory::new();
    for at in [img.header_pool, img.sampler_pool] {
        let mut entry = vec![0u8; 32];
        img.memory.read(at, &mut entry).unwrap();
        pools.map(at, entry).unwrap();
    }
    let mem = callback_memory(&pools as *const SparseMemory as *mut c_void, Some(read));
    let i = insn("TLD4.R R10, R8, R20, UR4, 2D ;");
    // (0.5, 0.5) on 5 x 3: the footprint is x 2..=3, y 1..=2
    let q = tld4_gather_query {
        coords: [0.5, 0.5, 0.0],
        ..Default::default()
    };
    let mut r = unsafe { std::mem::zeroed::<tld4_gather_result>() };
    let mut e = tld4_error::new();
    let st = unsafe {
        let (hp, sp) = (img.header_pool, img.sampler_pool);
        tld4_mem_gather(i, &mem, hp, sp, 0, null(), &q, 1, &mut r, &mut e)
    };
    assert_eq!(st, TLD4_ERR_MEMORY, "{}", e.message());
    let d = e.detail;
    assert_eq!(d.read, tld4_read::TLD4_READ_TEXEL);
    assert_eq!(d.layer, 0);
    assert!(
        (2..=3).contains(&d.x) && (1..=2).contains(&d.y),
        "({}, {})",
        d.x,
        d.y
    );
    // pitch rows of 64 bytes, 4 bytes a texel: the texel's first byte is the failed read
    assert_eq!(d.address, base + 64 * d.y as u64 + 4 * d.x as u64);
    let named = format!(
        "queries[0]: reading the texel (layer 0, x {}, y {})",
        d.x, d.y
    );
    assert!(e.message().starts_with(&named), "{}", e.message());
    unsafe { tld4_insn_free(i) };
}
