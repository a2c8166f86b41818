//! Mutators: structure-aware generation of words and assembly text, and byte, token and
//! number mutations of seeds, all driven by one seeded random generator (reproducible).

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tld4_decoder::{field, HandleForm, LEGAL_OPEX_VALUES};

use crate::targets::Target;

/// Number texts at the edges of the integer and float ranges the inputs are read into.
pub const BOUNDARY_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "1",
    "-1",
    "20",
    "21",
    "31",
    "32",
    "255",
    "256",
    "65535",
    "65536",
    "1048575",
    "1048576",
    "4095",
    "4096",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "1e39",
    "-1e39",
    "3.4028235e38",
    "3.4028236e38",
    "1e-45",
    "1e-46",
    "1e308",
    "1e309",
    "2.5",
    "0.5",
    "1e400",
    "NaN",
    "\"NaN\"",
    "\"inf\"",
    "\"-inf\"",
    "\"nan\"",
    "\"0x\"",
    "\"0x+ff\"",
    "\"0xffffffff\"",
    "\"0x100000000\"",
    "\"+1\"",
    "\"00-01\"",
    "\"31-0\"",
    "\"0-32\"",
];

/// JSON tokens inserted into cases and scenario files: structure and the files' own keys.
const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "false",
    "[]",
    "{}",
    "\"all\"",
    "\"texels\"",
    "\"generate\"",
    "\"pattern\"",
    "\"cell\"",
    "\"seed\"",
    "\"checker\"",
    "\"gradient\"",
    "\"random\"",
    "\"layers\"",
    "\"width\"",
    "\"height\"",
    "\"dim\"",
    "\"cube_array\"",
    "\"cube\"",
    "\"2d_array\"",
    "\"format\"",
    "\"rgba32_float\"",
    "\"d32_float\"",
    "\"rgb9e5\"",
    "\"swizzle\"",
    "\"residency\"",
    "\"border\"",
    "\"words\"",
    "\"float\"",
    "\"int\"",
    "\"compare\"",
    "\"less\"",
    "\"precision\"",
    "\"fraction_bits\"",
    "\"exact\"",
    "\"rounding\"",
    "\"offset\"",
    "\"offsets\"",
    "\"dref\"",
    "\"component\"",
    "\"coord\"",
    "\"result\"",
    "\"handles\"",
    "\"uniform\"",
    "\"lanes\"",
    "\"expect\"",
    "\"fault\"",
    "\"tolerance\"",
    "\"abs\"",
    "\"ulps\"",
    "\"config\"",
    "\"active_mask\"",
    "\"regs_per_thread\"",
    "\"require_aligned_pairs\"",
    "\"R255\"",
    "\"R254\"",
    "\"UR255\"",
    "\"P7\"",
    "\"PT\"",
    "\"RZ\"",
    "\"instruction\"",
    "\"TLD4.G.PTP.DC R8, R6, R4, R2, UR4, ARRAY_CUBE ;\"",
];

/// Assembly tokens inserted into instruction text.
const ASM_TOKENS: &[&str] = &[
    "TLD4",
    ".R",
    ".G",
    ".B",
    ".A",
    ".F16",
    ".RN",
    ".RZ",
    ".AOFFI",
    ".PTP",
    ".DC",
    ".SCR",
    ".NODEP",
    ".EL",
    ".LU",
    ".EF",
    ".INVALID3",
    ".INVALID2",
    "@",
    "@!",
    "P0",
    "P6",
    "PT",
    "!PT",
    "R0",
    "R255",
    "RZ",
    "UR4",
    "URZ",
    "UR255",
    "???255",
    "2D",
    "ARRAY_2D",
    "CUBE",
    "ARRAY_CUBE",
    "INVALID2",
    "0x0",
    "0x3",
    "0xff",
    "0x100",
    "0xffffffffffffffff",
    ",",
    ";",
    " ",
    "  ",
    "/*0000*/",
    "R+5",
    "R05",
];

/// A random word with TLD4's opcode (either form), bit 91 set and a legal opex value: words
/// that decode, so that the text round trip is exercised on every field (docs/sources.md,
/// Encoding).
pub fn legal_word(rng: &mut ChaCha8Rng) -> u128 {
    let form = if rng.gen() {
        HandleForm::Uniform
    } else {
        HandleForm::Register
    };
    let opex = u32::from(*LEGAL_OPEX_VALUES.choose(rng).expect("a legal opex value"));
    let w = field::form.set(rng.gen(), form.opcode() as u32);
    let w = field::bit_91.set(w, 1);
    let w = field::usched_info.set(w, opex & 0x1f);
    field::batch_t.set(w, opex >> 5)
}

/// A freshly generated input for a target, where the target has a generator.
fn generate(target: Target, rng: &mut ChaCha8Rng) -> Option<Vec<u8>> {
    let w = if rng.gen_bool(0.8) {
        legal_word(rng)
    } else {
        rng.gen()
    };
    match target {
        Target::Word => Some(match rng.gen_range(0..3) {
            0 => format!("{w:032x}"),
            1 => format!("0x{w:032X}"),
            _ => format!(
                "/* 0x{:016x} */ /* 0x{:016x} */",
                w as u64,
                (w >> 64) as u64
            ),
        }),
        Target::Asm => tld4_decoder::disassemble(w).ok(),
        _ => None,
    }
    .map(String::into_bytes)
}

/// The next input for `target`: a generated one, or a seed (one of `seeds`) mutated one to
/// eight times.
pub fn next_input(target: Target, seeds: &[Vec<u8>], rng: &mut ChaCha8Rng) -> Vec<u8> {
    if seeds.is_empty() || rng.gen_bool(0.15) {
        if let Some(g) = generate(target, rng) {
            if rng.gen_bool(0.5) {
                return g;
            }
            return mutate_n(target, g, seeds, rng);
        }
    }
    let seed = seeds.choose(rng).cloned().unwrap_or_default();
    mutate_n(target, seed, seeds, rng)
}

/// One to eight mutations, fewer more often (half the mutants have one), so that most
/// mutants stay close to a seed.
fn mutate_n(target: Target, mut data: Vec<u8>, seeds: &[Vec<u8>], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut n = 1;
    while n < 8 && rng.gen_bool(0.5) {
        n += 1;
    }
    for _ in 0..n {
        mutate(target, &mut data, seeds, rng);
    }
    data
}

/// One mutation, chosen among those that suit the target's kind of input.
pub fn mutate(target: Target, data: &mut Vec<u8>, seeds: &[Vec<u8>], rng: &mut ChaCha8Rng) {
    if matches!(target, Target::Cases | Target::Scenario)
        && rng.gen_bool(0.6)
        && crate::json::mutate(data, rng)
    {
        return;
    }
    let kinds = if target.is_text() { 10 } else { 8 };
    match rng.gen_range(0..kinds) {
        0 => flip_bit(data, rng),
        1 => set_byte(data, rng),
        2 => delete_range(data, rng),
        3 => duplicate_range(data, rng),
        4 => splice(data, seeds, rng),
        5 => truncate(data, rng),
        6 => insert_random(data, rng),
        7 => {
            if target.is_text() {
                insert_token(data, token_list(target), rng)
            } else {
                overwrite_int(data, rng)
            }
        }
        8 => replace_number(data, rng),
        _ => insert_token(data, BOUNDARY_NUMBERS, rng),
    }
}

fn token_list(target: Target) -> &'static [&'static str] {
    match target {
        Target::Word | Target::Asm => ASM_TOKENS,
        _ => JSON_TOKENS,
    }
}

fn pos(data: &[u8], rng: &mut ChaCha8Rng) -> usize {
    rng.gen_range(0..=data.len())
}

fn range(data: &[u8], rng: &mut ChaCha8Rng) -> (usize, usize) {
    let a = pos(data, rng);
    let len = rng.gen_range(0..=(data.len() - a).min(64));
    (a, a + len)
}

fn flip_bit(data: &mut [u8], rng: &mut ChaCha8Rng) {
    if !data.is_empty() {
        let i = rng.gen_range(0..data.len());
        data[i] ^= 1 << rng.gen_range(0..8);
    }
}

fn set_byte(data: &mut [u8], rng: &mut ChaCha8Rng) {
    if !data.is_empty() {
        let i = rng.gen_range(0..data.len());
        data[i] = *[
            0u8,
            0xff,
            0x7f,
            0x80,
            b'0',
            b'9',
            b'"',
            b'-',
            b'.',
            rng.gen(),
        ]
        .choose(rng)
        .expect("a byte");
    }
}

fn delete_range(data: &mut Vec<u8>, rng: &mut ChaCha8Rng) {
    let (a, b) = range(data, rng);
    data.drain(a..b);
}

fn duplicate_range(data: &mut Vec<u8>, rng: &mut ChaCha8Rng) {
    let (a, b) = range(data, rng);
    let copy = data[a..b].to_vec();
    let at = pos(data, rng);
    data.splice(at..at, copy);
}

/// A piece of another seed in place of a piece of this input.
fn splice(data: &mut Vec<u8>, seeds: &[Vec<u8>], rng: &mut ChaCha8Rng) {
    let Some(other) = seeds.choose(rng) else {
        return;
    };
    let (a, b) = range(other, rng);
    let (c, d) = range(data, rng);
    data.splice(c..d, other[a..b].iter().copied());
}

fn truncate(data: &mut Vec<u8>, rng: &mut ChaCha8Rng) {
    let at = pos(data, rng);
    data.truncate(at);
}

fn insert_random(data: &mut Vec<u8>, rng: &mut ChaCha8Rng) {
    let at = pos(data, rng);
    let bytes: Vec<u8> = (0..rng.gen_range(1..=8)).map(|_| rng.gen()).collect();
    data.splice(at..at, bytes);
}

fn insert_token(data: &mut Vec<u8>, tokens: &[&str], rng: &mut ChaCha8Rng) {
    let token = tokens.choose(rng).expect("a token").as_bytes();
    let at = pos(data, rng);
    data.splice(at..at, token.iter().copied());
}

/// A run of digits (with its sign, fraction and exponent) replaced by a boundary number.
fn replace_number(data: &mut Vec<u8>, rng: &mut ChaCha8Rng) {
    let starts: Vec<usize> = (0..data.len())
        .filter(|&i| data[i].is_ascii_digit() && (i == 0 || !data[i - 1].is_ascii_alphanumeric()))
        .collect();
    let Some(&start) = starts.choose(rng) else {
        return insert_token(data, BOUNDARY_NUMBERS, rng);
    };
    let start = if start > 0 && data[start - 1] == b'-' {
        start - 1
    } else {
        start
    };
    let mut end = start + 1;
    while end < data.len() && matches!(data[end], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
        end += 1;
    }
    let token = BOUNDARY_NUMBERS.choose(rng).expect("a number").as_bytes();
    data.splice(start..end, token.iter().copied());
}

/// A little-endian 16-, 32- or 64-bit boundary value written over binary data (ELF sizes,
/// offsets and counts).
fn overwrite_int(data: &mut [u8], rng: &mut ChaCha8Rng) {
    let width = *[2usize, 4, 8].choose(rng).expect("a width");
    if data.len() < width {
        return;
    }
    let at = rng.gen_range(0..=data.len() - width);
    let value: u64 = *[
        0,
        1,
        0x7f,
        0x80,
        0xff,
        0xffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x1_0000_0000,
        i64::MAX as u64,
        1 << 63,
        u64::MAX,
        data.len() as u64,
        rng.gen(),
    ]
    .choose(rng)
    .expect("a value");
    data[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
}
