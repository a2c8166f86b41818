//! Structure-aware mutation of JSON inputs (cases and scenario files): the document is
//! parsed, one node changed (a boundary number, another value from the document, a key
//! removed or added, an array element removed or repeated) and printed again, so that most
//! mutants stay well-formed and reach the loaders' checks rather than the JSON parser.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::mutate::BOUNDARY_NUMBERS;

/// Keys of the cases and scenario formats, added to objects.
const KEYS: &[&str] = &[
    "layers",
    "swizzle",
    "residency",
    "border",
    "compare",
    "seamless_cube",
    "precision",
    "offset",
    "offsets",
    "dref",
    "component",
    "generate",
    "texels",
    "config",
    "active_mask",
    "expect",
    "fault",
    "tolerance",
    "R255",
    "UR4",
    "P0",
    "lanes",
    "result",
    "cell",
    "seed",
    "memory",
    "address",
    "hex",
    "file",
    "texture_header_pool",
    "sampler_pool",
    "cubin",
    "kernel",
];

/// The JSON pointer of every node of `v` (the root is `""`).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let key = k.replace('~', "~0").replace('/', "~1");
                pointers(x, format!("{at}/{key}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// A value to put somewhere: a boundary number, a small constant, or a node of the document.
fn some_value(doc: &Value, all: &[String], rng: &mut ChaCha8Rng) -> Value {
    match rng.gen_range(0..4) {
        0 => {
            let text = BOUNDARY_NUMBERS.choose(rng).expect("a number");
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
        }
        1 => [
            Value::Null,
            Value::Bool(true),
            Value::Array(vec![]),
            Value::Object(Default::default()),
            Value::String("all".into()),
            Value::String(String::new()),
        ]
        .choose(rng)
        .cloned()
        .expect("a constant"),
        _ => all
            .choose(rng)
            .and_then(|p| doc.pointer(p))
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// One structural mutation of `data` if it is a JSON document; `false` if it is not.
pub fn mutate(data: &mut Vec<u8>, rng: &mut ChaCha8Rng) -> bool {
    let Ok(mut doc) = serde_json::from_slice::<Value>(data) else {
        return false;
    };
    let mut all = Vec::new();
    pointers(&doc, String::new(), &mut all);
    let Some(target) = all.choose(rng).cloned() else {
        return false;
    };
    let value = some_value(&doc, &all, rng);
    let op = rng.gen_range(0..3);
    let Some(node) = doc.pointer_mut(&target) else {
        return false;
    };
    match (node, op) {
        (Value::Array(a), 0) if !a.is_empty() => {
            let i = rng.gen_range(0..a.len());
            a.remove(i);
        }
        (Value::Array(a), 1) if !a.is_empty() => {
            let i = rng.gen_range(0..a.len());
            let x = a[i].clone();
            a.insert(i, x);
        }
        (Value::Object(m), 0) if !m.is_empty() => {
            let k = m
                .keys()
                .nth(rng.gen_range(0..m.len()))
                .cloned()
                .expect("a key");
            m.remove(&k);
        }
        (Value::Object(m), 1) => {
            m.insert(KEYS.choose(rng).expect("a key").to_string(), value);
        }
        (node, _) => *node = value,
    }
    match serde_json::to_vec(&doc) {
        Ok(text) => {
            *data = text;
            true
        }
        Err(_) => false,
    }
}
