//! The `memory` target: structure-aware memory-form scenarios. The input bytes are a stream
//! of choices ([`Draw`]): an owned texture (format, kind, size, random texels), a sampler,
//! an instruction of the texture's kind, each lane's coordinates, a layout and a base
//! address; the scenario is converted to its memory form ([`Scenario::to_memory_form`]), so
//! the descriptors are ones that reach the texel fetch. Then, on some inputs, the image is
//! damaged (a descriptor word overwritten, a byte flipped, a region cut short or dropped).
//!
//! Properties: an undamaged image runs exactly as the owned textures (every register bit,
//! or the same fault kind); every image runs twice alike, reports lines, and lists its texel
//! addresses; nothing panics.

use tld4_gpu_memory::{LayoutChoice, SparseMemory};
use tld4_scenario::{self as scenario, MemoryImage, Scenario, Textures};
use tld4_textures::Format;

use crate::targets::{refused, Verdict};

/// Choices read from the input: each call takes the next bytes (0 past the end), so every
/// input is a scenario and a mutated input a nearby one.
pub struct Draw<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Draw<'a> {
    /// Choices from `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Draw { data, at: 0 }
    }
    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    /// The next four bytes, little-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    /// The next eight bytes, little-endian.
    pub fn u64(&mut self) -> u64 {
        self.u32() as u64 | (self.u32() as u64) << 32
    }
    /// One of `items` (the first when the input has ended).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.byte() as usize % items.len()]
    }
    /// True one time in `n` (on a uniform byte).
    pub fn one_in(&mut self, n: u8) -> bool {
        self.byte().is_multiple_of(n)
    }
    /// A number below `n` (at least 1).
    pub fn below(&mut self, n: u32) -> u32 {
        self.u32() % n.max(1)
    }
}

/// Coordinates: mostly inside the texture, some at the edges and beyond, some special.
fn coord(d: &mut Draw) -> String {
    match d.byte() % 8 {
        0 => d
            .pick(&[
                "0.0", "1.0", "-0.0", "0.5", "1e30", "-1e30", "3.4e38", "1e-40",
            ])
            .into(),
        1 => format!("{:?}", f32::from_bits(d.u32()))
            .replace("NaN", "0.0")
            .replace("inf", "1e38"),
        _ => format!("{:?}", d.below(2200) as f32 / 1000.0 - 0.6),
    }
}

/// The owned scenario the choices describe, as JSON, and the kind's instruction dimension.
fn owned_json(d: &mut Draw) -> String {
    let format = d.pick(&Format::ALL);
    let dim = d.pick(&["2d", "2d", "2d_array", "cube", "cube_array"]);
    let (w, h) = if dim.starts_with("cube") {
        let n = d.pick(&[1, 2, 3, 4, 5, 8]);
        (n, n)
    } else {
        (
            d.pick(&[1, 2, 3, 4, 5, 7, 8, 16, 33]),
            d.pick(&[1, 2, 3, 4, 6, 8, 9, 17]),
        )
    };
    let layers = if dim.ends_with("array") {
        1 + d.below(3)
    } else {
        1
    };
    let (insn_dim, coords) = match dim {
        "2d" => ("2D", 2),
        "2d_array" => ("ARRAY_2D", 3),
        "cube" => ("CUBE", 3),
        _ => ("ARRAY_CUBE", 4),
    };
    let comp = d.pick(&["R", "G", "B", "A"]);
    let compare = format.is_depth() && d.one_in(2);
    let offsets = if dim.starts_with("cube") || compare {
        ""
    } else {
        d.pick(&["", "", ".AOFFI", ".PTP"])
    };
    let dc = if compare { ".DC" } else { "" };
    let insn = if offsets.is_empty() && !compare {
        format!("TLD4.{comp}{offsets}{dc} R10, R8, R20, UR4, {insn_dim} ;")
    } else {
        format!("TLD4.{comp}{offsets}{dc} R10, R8, R20, R30, UR4, {insn_dim} ;")
    };
    let mut lanes = Vec::new();
    for lane in 0..32 {
        let mut e = format!("{{\"lanes\": \"{lane}\"");
        let mut r = 20;
        if dim.ends_with("array") {
            e.push_str(&format!(", \"R{r}\": {}", d.below(5)));
            r += 1;
        }
        for _ in 0..(coords - dim.ends_with("array") as usize) {
            e.push_str(&format!(", \"R{r}\": {}", coord(d)));
            r += 1;
        }
        if !offsets.is_empty() || compare {
            e.push_str(&format!(", \"R30\": {}, \"R31\": {}", d.u32(), d.u32()));
        }
        e.push('}');
        lanes.push(e);
    }
    let modes = [
        "repeat",
        "mirrored_repeat",
        "clamp_to_edge",
        "clamp_to_border",
        "mirror_clamp_to_edge",
    ];
    let sampler = format!(
        "{{\"address_u\": \"{}\", \"address_v\": \"{}\", \"border\": {{\"words\": [{}, {}, {}, {}]}}{}, \"seamless_cube\": {}}}",
        d.pick(&modes),
        d.pick(&modes),
        d.u32(),
        d.u32(),
        d.u32(),
        d.u32(),
        if compare { ", \"compare\": \"less_or_equal\"" } else { "" },
        !d.one_in(4),
    );
    // the handle names texture 0 and sampler 0, or (rarely) a slot the pools lack
    let (t, s) = if d.one_in(16) {
        (d.below(3), d.below(3))
    } else {
        (0, 0)
    };
    format!(
        r#"{{"textures": [{{"dim": "{dim}", "format": "{}", "width": {w}, "height": {h}, "layers": {layers}, "generate": {{"pattern": "random", "seed": {}}}}}],
  "samplers": [{sampler}],
  "handles": {{"t": {{"texture": {t}, "sampler": {s}}}}},
  "instruction": "{insn}", "uniform": {{"UR4": "t"}}, "active_mask": {},
  "lanes": [{}]}}"#,
        format.name(),
        d.u32(),
        if d.one_in(4) { d.u32() } else { u32::MAX },
        lanes.join(", ")
    )
}

/// The layout and base address of the memory form.
fn placement(d: &mut Draw) -> (LayoutChoice, u64) {
    let layout = if d.one_in(2) {
        LayoutChoice::Pitch {
            row_alignment: 32 * (1 + d.below(4)),
        }
    } else {
        LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: d.below(6) as u8,
        }
    };
    let base = match d.byte() % 8 {
        0 => (1 << 57) - 0x10_0000,
        1 => d.pick(&[u64::MAX - 511, 0xffff_ffff_ffff_f000, 1 << 57, 0]),
        2 => d.u64() & !511,
        _ => 0x10000 * (1 + d.below(64)) as u64,
    };
    (layout, base)
}

/// The image with one kind of damage: a descriptor word overwritten, a byte flipped, a
/// region cut short or left out.
fn damage(d: &mut Draw, image: &MemoryImage) -> MemoryImage {
    let regions: Vec<(u64, Vec<u8>)> = image
        .memory
        .regions()
        .map(|(b, r)| (b, r.to_vec()))
        .collect();
    let victim = d.below(regions.len() as u32) as usize;
    let how = d.byte() % 4;
    let mut memory = SparseMemory::new();
    for (k, (base, mut bytes)) in regions.into_iter().enumerate() {
        if k == victim && !bytes.is_empty() {
            match how {
                0 => {
                    let word = d.below(bytes.len().div_ceil(4) as u32) as usize * 4;
                    let v = d.u32().to_le_bytes();
                    for (i, b) in v.iter().enumerate() {
                        if let Some(x) = bytes.get_mut(word + i) {
                            *x = *b;
                        }
                    }
                }
                1 => {
                    let at = d.below(bytes.len() as u32) as usize;
                    bytes[at] ^= 1 << (d.byte() % 8);
                }
                2 => bytes.truncate(d.below(bytes.len() as u32) as usize),
                _ => continue,
            }
        }
        if !bytes.is_empty() {
            // regions came from a valid map: they stay apart
            let _ = memory.map(base, bytes);
        }
    }
    MemoryImage {
        memory,
        header_pool: image.header_pool,
        sampler_pool: image.sampler_pool,
    }
}

/// Registers and predicates of every lane after a run, or the fault's kind.
fn outcome(s: &Scenario) -> Result<Vec<u32>, String> {
    match s.execute() {
        Ok(run) => Ok((0..32)
            .flat_map(|lane| {
                let regs: Vec<u32> = (0..40).map(|r| run.reg(lane, r)).collect();
                let preds = (0..7).fold(0u32, |m, p| m | (run.pred(lane, p) as u32) << p);
                regs.into_iter().chain([preds, run.executed(lane) as u32])
            })
            .collect()),
        Err(e) => Err(scenario::fault_kind(&e).to_string()),
    }
}

/// Runs one memory-form input (see the module doc).
pub fn memory_scenario(input: &[u8]) -> Verdict {
    let mut d = Draw::new(input);
    let json = owned_json(&mut d);
    let owned = match scenario::load(&json) {
        Ok(s) => s,
        Err(e) => return refused(e),
    };
    let (layout, base) = placement(&mut d);
    let mut mem = match owned.to_memory_form(layout, base) {
        Ok(m) => m,
        Err(e) => return refused(e),
    };
    let damaged = d.one_in(2);
    if damaged {
        let Textures::Memory(image) = &mem.textures else {
            unreachable!("to_memory_form makes the memory form")
        };
        mem.textures = Textures::Memory(damage(&mut d, image));
    }
    let first = outcome(&mem);
    assert_eq!(
        first,
        outcome(&mem),
        "two runs of one memory scenario differ"
    );
    if !damaged {
        assert_eq!(
            first,
            outcome(&owned),
            "the memory form runs differently from the owned textures:\n{json}\n{layout:?} at {base:#x}"
        );
    }
    let report = scenario::run(&mem);
    assert!(!report.lines.is_empty(), "a run without a report line");
    let lines = scenario::address_lines(&mem)
        .unwrap_or_else(|e| panic!("a memory scenario without address lines: {e}"));
    assert!(!lines.is_empty());
    match first {
        Ok(_) => Verdict::Accepted,
        Err(kind) => Verdict::Refused(format!("the warp faults: {kind}")),
    }
}
