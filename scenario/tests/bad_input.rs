//! Hostile memory-form scenarios: region files that are FIFOs, that are too large together,
//! or that lie outside the scenario's directory (`confine`), regions at the very top of the
//! address space, descriptor pools whose entries pass 2^64, and many tiny regions (the
//! overlap check's cost, as a ratio against mapping the same regions without it).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tld4_gpu_memory::{Memory, MemoryPool, SparseMemory};
use tld4_scenario::{load_in, load_with, run, LoadOptions, Scenario, MAX_SCENARIO_MEMORY_BYTES};
use tld4_textures::{Handle, MemoryError};

const EXAMPLE: &str = include_str!("../../examples/scenarios/memory_pitch_rgba8.json");
/// The example's texel region, as hex.
const TEXELS: &str = "\"hex\": \"102030ff 405060ff 00000000 00000000 00000000 00000000 00000000 00000000 708090ff a0b0c0ff\"";
/// The example's texel bytes.
const TEXEL_BYTES: [u8; 40] = {
    let mut t = [0u8; 40];
    let a = [0x10, 0x20, 0x30, 0xff, 0x40, 0x50, 0x60, 0xff];
    let b = [0x70, 0x80, 0x90, 0xff, 0xa0, 0xb0, 0xc0, 0xff];
    let mut i = 0;
    while i < 8 {
        t[i] = a[i];
        t[32 + i] = b[i];
        i += 1;
    }
    t
};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tld4-bad-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The example with its texel region read from file `name`.
fn with_texel_file(name: &str) -> String {
    assert!(EXAMPLE.contains(TEXELS));
    let file = serde_json::to_string(name).unwrap();
    EXAMPLE.replacen(TEXELS, &format!("\"file\": {file}"), 1)
}

#[cfg(unix)]
#[test]
fn a_fifo_region_file_is_refused_without_blocking() {
    let dir = scratch("fifo");
    let fifo = dir.join("texels.bin");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    // Opening a FIFO for reading blocks until a writer comes: if the loader opened it
    // before its check, this call would never return.
    let e = load_in(&with_texel_file("texels.bin"), &dir).unwrap_err();
    assert_eq!(e.path, "memory[2].file", "{e}");
    assert!(e.message.contains("not a regular file"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_total_bound_names_the_region_that_crosses_it_before_reading_it() {
    assert_eq!(MAX_SCENARIO_MEMORY_BYTES, 2 << 30);
    let dir = scratch("total");
    // A sparse file of 1 GiB: refused from its size, before a byte is read or allocated.
    let big = std::fs::File::create(dir.join("texels.bin")).unwrap();
    big.set_len(1 << 30).unwrap();
    let limit = LoadOptions::default().memory_limit(1 << 20);
    let e = load_with(&with_texel_file("texels.bin"), &dir, &limit).unwrap_err();
    assert_eq!(e.path, "memory[2].file", "{e}");
    assert!(
        e.message.contains("1073741824 bytes") && e.message.contains("at most 1048576 bytes"),
        "{e}"
    );
    // The bound counts every region: 64 bytes are taken by the two descriptor regions, so
    // a bound of 100 leaves 36 for the 40 texel bytes.
    std::fs::write(dir.join("texels.bin"), TEXEL_BYTES).unwrap();
    let tight = LoadOptions::default().memory_limit(100);
    let e = load_with(&with_texel_file("texels.bin"), &dir, &tight).unwrap_err();
    assert_eq!(e.path, "memory[2].file", "{e}");
    assert!(e.message.contains("40 bytes, more than the 36"), "{e}");
    let e = load_with(EXAMPLE, &dir, &tight).unwrap_err();
    assert_eq!(e.path, "memory[2].hex", "{e}");
    assert!(e.message.contains("40 bytes, more than the 36"), "{e}");
    // the bound counts bytes, not hex digits and spaces
    let exact = LoadOptions::default().memory_limit(104);
    assert_eq!(run(&load_with(EXAMPLE, &dir, &exact).unwrap()).failed, 0);
    let fits = LoadOptions::default().memory_limit(104);
    let s = load_with(&with_texel_file("texels.bin"), &dir, &fits).unwrap();
    assert_eq!(run(&s).failed, 0);
    // The builder keeps the same bound, naming the region.
    let mut b = Scenario::builder();
    b.memory_limit(16);
    b.memory(0x1000, vec![0; 10]).unwrap();
    let e = b.memory(0x2000, vec![0; 7]).err().unwrap();
    assert_eq!(e.path, "memory[1]", "{e}");
    assert_eq!(b.mapped_bytes(), 10);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_region_may_hold_the_last_byte_of_the_address_space() {
    let mut b = Scenario::builder();
    b.memory(u64::MAX, vec![0xab]).unwrap();
    b.memory(u64::MAX - 16, vec![1; 16]).unwrap();
    let e = b
        .memory(0x1000, vec![0; 4])
        .and_then(|b| b.memory(u64::MAX - 40, vec![0; 25]));
    let e = e
        .err()
        .expect("a region overlapping the top two is refused");
    assert_eq!(e.path, "memory[3]", "{e}");
    assert!(e.message.contains("overlap memory[1]"), "{e}");
    let e = b.memory(u64::MAX - 100, vec![0; 102]).err().unwrap();
    assert!(e.message.contains("pass the end"), "{e}");
    // SparseMemory reads the last byte, and a read ending at 2^64.
    let mut m = SparseMemory::new();
    m.map(u64::MAX - 31, (0..32).collect()).unwrap();
    let mut buf = [0u8; 32];
    m.read(u64::MAX - 31, &mut buf).unwrap();
    assert_eq!(buf[31], 31);
    assert_eq!(
        m.read_u32(u64::MAX - 3).unwrap(),
        u32::from_le_bytes([28, 29, 30, 31])
    );
    assert!(matches!(
        m.read_u32(u64::MAX - 2),
        Err(MemoryError::Overflow { .. })
    ));
    assert!(m.map(u64::MAX, vec![0]).is_err(), "overlaps");
    // A header at the top of the address space is read.
    let pool = MemoryPool::new(&m, u64::MAX - 31, 0);
    assert_eq!(
        pool.header_words(0).unwrap()[7],
        u32::from_le_bytes([28, 29, 30, 31])
    );
}

#[test]
fn pool_entries_past_the_end_name_the_entry_and_its_address() {
    let m = SparseMemory::new();
    let pool = MemoryPool::new(&m, 0xffff_ffff_ffff_ffe0, 0xffff_ffff_ffff_0000);
    let e = pool.header_words(1).unwrap_err().to_string();
    assert!(
        e.starts_with("texture header 1: its 32 bytes at 0x10000000000000000..0x10000000000000020"),
        "{e}"
    );
    let h = Handle::new(0, Handle::MAX_SAMPLER).unwrap();
    let e = pool
        .sampler_words(h.sampler_index())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("sampler 4095: its 32 bytes at 0x1000000000000ffe0..0x10000000000010000"),
        "{e}"
    );
    // entry 0 at the very top is within the address space: only unmapped
    assert!(matches!(
        pool.header_words(0),
        Err(MemoryError::Unmapped { .. })
    ));
}

/// Seconds `f` takes (the best of three).
fn best_of_three(mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn many_tiny_regions_cost_about_what_mapping_them_costs() {
    const N: u64 = 200_000;
    // every other byte, in an order that is neither ascending nor descending
    let at = |k: u64| (k * 7919 % N) * 2;
    let baseline = best_of_three(|| {
        let mut m = SparseMemory::new();
        for k in 0..N {
            m.map(at(k), vec![k as u8]).unwrap();
        }
        assert!(m.read_u32(0).is_err());
    });
    let builder = best_of_three(|| {
        let mut b = Scenario::builder();
        for k in 0..N {
            b.memory(at(k), vec![k as u8]).unwrap();
        }
        assert_eq!(b.mapped_bytes(), N);
    });
    // The builder maps into a SparseMemory and keeps an index by base: a few times the
    // baseline. An overlap check against every earlier region took ~10^4 times as long.
    let ratio = builder / baseline;
    assert!(
        ratio < 25.0,
        "builder {builder:.3} s, baseline {baseline:.3} s"
    );
}

#[cfg(unix)]
#[test]
fn confine_keeps_files_in_the_scenario_directory() {
    let root = scratch("confine");
    let dir = root.join("scenarios");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(root.join("outside.bin"), TEXEL_BYTES).unwrap();
    std::fs::write(dir.join("sub/texels.bin"), TEXEL_BYTES).unwrap();
    std::os::unix::fs::symlink(root.join("outside.bin"), dir.join("link.bin")).unwrap();
    let confined = LoadOptions::default().confine(true);
    let outside = root.join("outside.bin").display().to_string();
    for name in [
        "../outside.bin",
        outside.as_str(),
        "link.bin",
        "sub/../../outside.bin",
    ] {
        let text = with_texel_file(name);
        // Without confinement every one reads the file outside: the decision documented.
        let s = load_in(&text, &dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(run(&s).failed, 0, "{name}");
        let e = load_with(&text, &dir, &confined).unwrap_err();
        assert_eq!(e.path, "memory[2].file", "{name}: {e}");
        assert!(
            e.message.contains("outside the scenario's directory"),
            "{e}"
        );
    }
    for name in ["sub/texels.bin", "./sub/texels.bin"] {
        let s = load_with(&with_texel_file(name), &dir, &confined).unwrap();
        assert_eq!(run(&s).failed, 0, "{name}");
    }
    // a missing file under confinement is named, as without it
    let e = load_with(&with_texel_file("nothere.bin"), &dir, &confined).unwrap_err();
    assert_eq!(e.path, "memory[2].file");
    assert!(e.message.contains("nothere.bin"), "{e}");
    let _ = std::fs::remove_dir_all(&root);
}

/// A cubin reference is confined too.
#[test]
fn confine_covers_cubin_references() {
    let cuda = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/cuda");
    let text = std::fs::read_to_string(cuda.join("gather.scenario.json")).unwrap();
    let confined = LoadOptions::default().confine(true);
    load_with(&text, &cuda, &confined).expect("the example's cubin is in its directory");
    let parent = cuda.parent().unwrap();
    let moved = text.replace("\"gather.sm100.cubin\"", "\"../cuda/gather.sm100.cubin\"");
    assert_ne!(moved, text);
    load_with(&moved, &cuda, &LoadOptions::default()).unwrap();
    let e = load_with(&moved, &cuda, &confined).unwrap_err();
    assert_eq!(e.path, "instruction.cubin", "{e}");
    assert!(parent.exists());
}
