//! Reading a results document: its runs as rows of words, the texel an index texture's value
//! names, Vulkan's slot order; and the section every analysis writes.

use serde_json::{json, Value};

pub(crate) fn u(v: &Value) -> u32 {
    v.as_u64().unwrap_or(0) as u32
}

pub(crate) fn rows(v: &Value) -> Vec<Vec<u32>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    r.as_array()
                        .map(|x| x.iter().map(u).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One recorded run.
pub(crate) struct RunView {
    pub(crate) kernel: String,
    pub(crate) texture: String,
    pub(crate) sass: String,
    pub(crate) queries: Vec<Vec<u32>>,
    pub(crate) results: Vec<Vec<u32>>,
}

pub(crate) fn run_views(v: &Value) -> Vec<RunView> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|r| RunView {
                    kernel: r["kernel"].as_str().unwrap_or("").into(),
                    texture: r["texture"].as_str().unwrap_or("").into(),
                    sass: r["sass"].as_str().unwrap_or("").into(),
                    queries: rows(&r["queries"]),
                    results: rows(&r["results"]),
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn find<'a>(runs: &'a [RunView], kernel: &str, texture: &str) -> Option<&'a RunView> {
    runs.iter()
        .find(|r| r.kernel == kernel && (texture.is_empty() || r.texture == texture))
}

/// A gathered value of an index texture (1 + i + w*j + w*h*l) as (l, i, j), or None.
pub(crate) fn texel_of(bits: u32, w: u32, h: u32) -> Option<(u32, u32, u32)> {
    let x = f32::from_bits(bits);
    if x.is_nan() || x < 1.0 || x.fract() != 0.0 {
        return None;
    }
    let k = x as u32 - 1;
    Some((k / (w * h), k % w, (k % (w * h)) / w))
}

pub(crate) fn fmt_texel(bits: u32, w: u32, h: u32) -> String {
    match texel_of(bits, w, h) {
        Some((0, i, j)) => format!("({i},{j})"),
        Some((l, i, j)) => format!("L{l}({i},{j})"),
        None => format!("{}", f32::from_bits(bits)),
    }
}

/// The four slots of a gather, Vulkan's order: (i0,j1), (i1,j1), (i1,j0), (i0,j0) (Vulkan spec,
/// "Texel Gathering"; docs/sources.md's emulator follows it).
pub const VULKAN_SLOTS: [(u32, u32); 4] = [(0, 1), (1, 1), (1, 0), (0, 0)];

pub(crate) struct Section {
    pub(crate) title: String,
    pub(crate) lines: Vec<String>,
    pub(crate) summary: Value,
}

pub(crate) fn section(title: &str) -> Section {
    Section {
        title: title.into(),
        lines: Vec::new(),
        summary: json!({}),
    }
}
