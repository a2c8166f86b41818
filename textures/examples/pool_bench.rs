//! Handle lookups and pool memory:
//! `cargo run --release -p tld4-textures --example pool_bench`.
//!
//! Memory: the bytes the pool allocates (counted by a global allocator) to hold one texture
//! at header index 1_048_575 and one sampler at 4095, and 64 textures spread over the whole
//! index range. Speed: `TexturePool::resolve` (both lookups of a handle) over a rotating set
//! of 64 handles, and `TexturePool::gatherer` (what the executor does once per warp). Each
//! figure is the best of 5 runs. Environment: ROUNDS (default 2000).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use tld4_textures::*;

/// Counts the bytes currently allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn texture() -> Texture {
    let desc = TextureDesc {
        kind: TextureKind::Tex2D,
        format: Format::Rgba8Unorm,
        width: 4,
        height: 4,
        layers: 1,
    };
    Texture::from_fn(desc, |_, x, y| [x * 10, y * 10, 0, 255]).expect("texture")
}

fn main() -> Result<(), Error> {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let tex = texture();
    let tex_bytes = {
        let before = LIVE.load(Ordering::Relaxed);
        let t = texture();
        let b = LIVE.load(Ordering::Relaxed) - before;
        drop(t);
        b
    };

    let before = LIVE.load(Ordering::Relaxed);
    let mut one = TexturePool::new();
    one.set_texture(Handle::MAX_HEADER, tex.clone())?;
    one.set_sampler(Handle::MAX_SAMPLER, Sampler::default())?;
    let one_bytes = LIVE.load(Ordering::Relaxed) - before;
    println!(
        "memory: one texture at {} and one sampler at {}: {} bytes ({} of them the texture's texels)",
        Handle::MAX_HEADER,
        Handle::MAX_SAMPLER,
        one_bytes,
        tex_bytes
    );
    black_box(&one);

    let before = LIVE.load(Ordering::Relaxed);
    let mut pool = TexturePool::new();
    let mut handles = Vec::new();
    for k in 0..64u32 {
        let t = k * 16_411 % (Handle::MAX_HEADER + 1);
        let s = k * 61 % (Handle::MAX_SAMPLER + 1);
        pool.set_texture(t, tex.clone())?;
        pool.set_sampler(s, Sampler::default())?;
        handles.push(Handle::new(t, s)?);
    }
    println!(
        "memory: 64 textures and 64 samplers spread over the index range: {} bytes",
        LIVE.load(Ordering::Relaxed) - before
    );

    let n = (handles.len() * rounds) as f64;
    let mut best = f64::MAX;
    let mut acc = 0u32;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..rounds {
            for &h in &handles {
                let (t, _) = pool.resolve(black_box(h))?;
                acc = acc.wrapping_add(t.width());
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("resolve: {:.2} ns a handle [{acc:x}]", best / n * 1e9);

    let op = GatherOp::new(TextureKind::Tex2D, 0);
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..rounds {
            for &h in &handles {
                let g = pool.gatherer(black_box(h), &op, Precision::default())?;
                black_box(&g);
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!("gatherer: {:.2} ns a handle", best / n * 1e9);
    Ok(())
}
