//! `decode`, `assemble`, `disasm` and `Instruction`: the decoder crate as the CLI's
//! `disasm` and `asm` use it, with the CLI's messages.

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyMemoryView};
use pyo3::IntoPyObjectExt;

use tld4_decoder::{
    decode as decode_sm100, decode_arch, decode_many, parse, parse_arch, Access, Arch, ArchTld4,
    DecodeError as RustDecodeError, Family, Location, Tld4,
};

use crate::errors::{value_error, with_attrs, AsmError, DecodeError};
use crate::memory::bytes_of;

/// An architecture name (`sm_100`, `SM90a`, `75`...), as `--arch` reads it.
pub fn arch_of(name: &str) -> PyResult<Arch> {
    name.parse::<Arch>().map_err(value_error)
}

/// The word as `tld4 disasm` writes it: 32 hex digits.
pub fn hex32(word: u128) -> String {
    format!("{word:032x}")
}

/// The Python error for a word nvdisasm refuses: `tld4 disasm`'s line without `error: `.
pub fn decode_error(word: u128, e: &RustDecodeError) -> PyErr {
    DecodeError::new_err(format!("{}: {e}", hex32(word)))
}

/// Decodes as `tld4 disasm --arch` does: the SM100 family through the base decoder.
pub fn decode_word(arch: Arch, word: u128) -> Result<ArchTld4, RustDecodeError> {
    if arch.family() == Family::Sm100 {
        decode_sm100(word).map(|i| ArchTld4::base(arch, i))
    } else {
        decode_arch(arch, word)
    }
}

/// The name of an access, as the stub lists them.
fn access_name(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::CondRead => "cond_read",
        Access::CondWrite => "cond_write",
        _ => "unknown",
    }
}

/// A decoded TLD4 of one architecture.
#[pyclass(module = "tld4", frozen)]
pub struct Instruction {
    pub insn: ArchTld4,
    pub word: u128,
}

impl Instruction {
    /// The base table's fields.
    pub fn tld4(&self) -> &Tld4 {
        &self.insn.insn
    }
}

#[pymethods]
impl Instruction {
    /// nvdisasm's text, exactly as `tld4 disasm` prints it.
    #[getter]
    fn text(&self) -> String {
        self.insn.text()
    }

    /// The 128-bit word (`hi << 64 | lo`).
    #[getter]
    fn word(&self) -> u128 {
        self.word
    }

    /// The architecture the word was decoded for (`sm_100`, ...).
    #[getter]
    fn arch(&self) -> &'static str {
        self.insn.arch.name()
    }

    /// Every field, name -> raw value, as `tld4 disasm --fields` lists them (the family's
    /// own rows after the base table's).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (spec, raw, _) in self.insn.insn.field_values() {
            d.set_item(spec.name, raw)?;
        }
        for r in tld4_decoder::FAMILY_ROWS
            .iter()
            .filter(|r| r.family == self.insn.arch.family())
        {
            d.set_item(r.spec.name, r.spec.get(self.word))?;
        }
        Ok(d)
    }

    /// Each field's meaning, name -> text, as the last column of `tld4 disasm --fields`.
    #[getter]
    fn field_meanings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (spec, _, meaning) in self.insn.insn.field_values() {
            d.set_item(spec.name, meaning)?;
        }
        Ok(d)
    }

    /// The registers the instruction reads and writes, as (name, access) pairs: `R8`,
    /// `UR4`, `P0`...; access `read` (every active lane), `cond_read` (executing lanes),
    /// `cond_write`.
    fn used_registers(&self) -> Vec<(String, &'static str)> {
        self.insn
            .used_registers()
            .iter()
            .map(|u| (location_name(u.location), access_name(u.access)))
            .collect()
    }

    /// The scheduling-control fields: a dict of `usched_info`, `batch_t`, `dst_wr_sb`,
    /// `src_rel_sb`, `req_bit_set`, `pm_pred` and `opex` (raw values).
    #[getter]
    fn scheduling<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.insn.insn.scheduling();
        let d = PyDict::new(py);
        d.set_item("usched_info", s.usched_info.0)?;
        d.set_item("batch_t", s.batch_t.0)?;
        d.set_item("dst_wr_sb", s.dst_wr_sb.0)?;
        d.set_item("src_rel_sb", s.src_rel_sb.0)?;
        d.set_item("req_bit_set", s.req_bit_set.0)?;
        d.set_item("pm_pred", s.pm_pred.0)?;
        d.set_item("opex", s.opex())?;
        Ok(d)
    }

    /// The word encoded back (equal to `.word` up to bits nvdisasm ignores).
    fn encode(&self) -> u128 {
        self.insn.encode()
    }

    fn __str__(&self) -> String {
        self.insn.text()
    }

    fn __repr__(&self) -> String {
        format!(
            "tld4.Instruction({:#034x}, {:?})",
            self.word,
            self.insn.text()
        )
    }

    fn __eq__(&self, other: &Instruction) -> bool {
        self.word == other.word && self.insn.arch == other.insn.arch
    }

    fn __hash__(&self) -> u64 {
        (self.word as u64) ^ ((self.word >> 64) as u64).rotate_left(17)
    }
}

/// `R8`, `UR4`, `P0`.
pub fn location_name(l: Location) -> String {
    l.to_string()
}

/// Decodes one 128-bit word (`hi << 64 | lo`) for `arch`. Raises `DecodeError` (a
/// `ValueError`) with `tld4 disasm`'s message where nvdisasm refuses the word.
#[pyfunction]
#[pyo3(signature = (word, arch = "sm_100"))]
pub fn decode(word: u128, arch: &str) -> PyResult<Instruction> {
    let arch = arch_of(arch)?;
    decode_word(arch, word)
        .map(|insn| Instruction { insn, word })
        .map_err(|e| decode_error(word, &e))
}

/// Assembles nvdisasm's text of one TLD4 into its word. Raises `AsmError` (a `ValueError`)
/// with `.column` where the text is no TLD4.
#[pyfunction]
#[pyo3(signature = (text, arch = "sm_100"))]
pub fn assemble(py: Python<'_>, text: &str, arch: &str) -> PyResult<u128> {
    let arch = arch_of(arch)?;
    let r = if arch.family() == Family::Sm100 {
        parse(text).map(|i| i.encode())
    } else {
        parse_arch(arch, text).map(|i| i.encode())
    };
    r.map_err(|e| {
        let column = e.column.into_py_any(py);
        match column {
            Ok(c) => with_attrs::<AsmError>(py, e.to_string(), &[("column", c)]),
            Err(err) => err,
        }
    })
}

/// The words of `words`: raw code (`bytes`, `bytearray`, `memoryview` or a flat `uint8`
/// array: 16-byte words, little-endian, low half first, as `tld4 disasm --binary` reads a
/// file), a numpy `uint64` array of (lo, hi) halves in memory order (shape (n, 2), or flat of
/// even length), or an iterable of ints.
fn words_of(words: &Bound<'_, PyAny>) -> PyResult<Vec<u128>> {
    if let Ok(arr) = words.extract::<PyReadonlyArray2<'_, u64>>() {
        if arr.shape()[1] != 2 {
            return Err(value_error(format!(
                "a numpy array of words has shape (n, 2) (lo, hi halves), or is flat; got {:?}",
                arr.shape()
            )));
        }
        let a = arr.as_array();
        // Fallible: a (2**30, 2) array of zero strides is 16 GiB of words.
        let mut out = Vec::new();
        out.try_reserve_exact(a.nrows())
            .map_err(|_| memory_error(a.nrows(), "words"))?;
        match arr.as_slice() {
            // (contiguous: read as pairs, which the compiler keeps in registers)
            Ok(flat) => out.extend(pairs(flat)),
            Err(_) => out.extend(
                a.rows()
                    .into_iter()
                    .map(|r| (r[1] as u128) << 64 | r[0] as u128),
            ),
        }
        return Ok(out);
    }
    if let Ok(arr) = words.extract::<PyReadonlyArray1<'_, u64>>() {
        let a = arr.as_array();
        if !a.len().is_multiple_of(2) {
            return Err(value_error(format!(
                "a flat numpy array of words holds (lo, hi) halves: an even length; got {}",
                a.len()
            )));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(a.len() / 2)
            .map_err(|_| memory_error(a.len() / 2, "words"))?;
        match arr.as_slice() {
            Ok(flat) => out.extend(pairs(flat)),
            Err(_) => {
                let v: Vec<u64> = a.iter().copied().collect();
                out.extend(pairs(&v));
            }
        }
        return Ok(out);
    }
    if let Some(bytes) = raw_code(words)? {
        return bytes_to_words(&bytes);
    }
    let mut out = Vec::new();
    for w in words.try_iter()? {
        out.try_reserve(1)
            .map_err(|_| memory_error(out.len() + 1, "words"))?;
        out.push(w?.extract::<u128>()?);
    }
    Ok(out)
}

/// (lo, hi) halves into words.
fn pairs(flat: &[u64]) -> impl Iterator<Item = u128> + '_ {
    flat.chunks_exact(2)
        .map(|p| (p[1] as u128) << 64 | p[0] as u128)
}

/// The bytes of raw code: `bytes`, `bytearray`, `memoryview` (any buffer of bytes) or a flat
/// numpy `uint8` array; None for anything else.
fn raw_code(words: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u8>>> {
    if let Ok(b) = words.cast::<PyBytes>() {
        return Ok(Some(b.as_bytes().to_vec()));
    }
    if let Ok(arr) = words.extract::<PyReadonlyArray1<'_, u8>>() {
        return Ok(Some(arr.as_array().iter().copied().collect()));
    }
    if words.is_instance_of::<PyByteArray>() || words.is_instance_of::<PyMemoryView>() {
        return Ok(Some(bytes_of(words)?));
    }
    Ok(None)
}

/// Raw code into words, as `tld4 disasm --binary` reads a file: a trailing partial word is a
/// `ValueError` saying so.
fn bytes_to_words(bytes: &[u8]) -> PyResult<Vec<u128>> {
    if !bytes.len().is_multiple_of(16) {
        return Err(value_error(format!(
            "raw code holds {} bytes, not a whole number of 16-byte words",
            bytes.len()
        )));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(bytes.len() / 16)
        .map_err(|_| memory_error(bytes.len() / 16, "words"))?;
    out.extend(
        bytes
            .chunks_exact(16)
            .map(|c| u128::from_le_bytes(c.try_into().expect("16 bytes"))),
    );
    Ok(out)
}

/// `MemoryError` for `n` items of `what` that could not be allocated.
fn memory_error(n: usize, what: &str) -> PyErr {
    pyo3::exceptions::PyMemoryError::new_err(format!("no memory for {n} {what}"))
}

/// Words decoded at a time by [`disasm`]: what it holds besides the words and the list is
/// bounded by this, whatever the input's length.
const DISASM_CHUNK: usize = 1 << 16;

/// nvdisasm's text of each word, None for a word nvdisasm refuses (`arch` as for
/// `decode`). `words`: raw code (`bytes`, `bytearray`, `memoryview` or a flat `uint8` array:
/// 16-byte words, little-endian, low half first, as `tld4 disasm --binary` reads a file); a
/// numpy `uint64` array of (lo, hi) halves as they lie in memory, of shape (n, 2) or flat of
/// even length; or an iterable of ints. Raw code of a length not a multiple of 16 is a
/// `ValueError`. Decodes without the GIL.
#[pyfunction]
#[pyo3(signature = (words, arch = "sm_100"))]
pub fn disasm<'py>(
    py: Python<'py>,
    words: &Bound<'py, PyAny>,
    arch: &str,
) -> PyResult<Bound<'py, PyList>> {
    let arch = arch_of(arch)?;
    let words = words_of(words)?;
    // Decoded a chunk at a time (bounded Rust memory); the list grows in Python, whose
    // allocation failures are MemoryError. A chunk's texts are written into one string (no
    // string allocated a word), each word's end noted (None: refused), and the Python
    // strings made from its slices.
    let list = PyList::empty(py);
    for chunk in words.chunks(DISASM_CHUNK) {
        let (text, ends) = py.detach(|| {
            let mut text = String::with_capacity(chunk.len() * 48);
            let mut ends: Vec<Option<usize>> = Vec::with_capacity(chunk.len());
            // (writing into a String cannot fail)
            if arch.family() == Family::Sm100 {
                let mut out = vec![Err(RustDecodeError::Bit91Clear); chunk.len()];
                // equal lengths: decode_many cannot fail
                let _ = decode_many(chunk, &mut out);
                for r in &out {
                    ends.push(r.as_ref().ok().map(|i| {
                        let _ = i.write_text(&mut text);
                        text.len()
                    }));
                }
            } else {
                for &w in chunk {
                    ends.push(decode_arch(arch, w).ok().map(|i| {
                        let _ = i.write_text(&mut text);
                        text.len()
                    }));
                }
            }
            (text, ends)
        });
        let mut start = 0;
        for end in ends {
            let t = end.map(|end| {
                let slice = &text[start..end];
                start = end;
                slice
            });
            list.append(t)?;
        }
    }
    Ok(list)
}
