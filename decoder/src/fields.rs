//! The one declarative table of TLD4's fields.
//!
//! Each field's bits are written once, in the `tld4_fields!` invocation below; decoding,
//! encoding, the field listing (`tld4 disasm --fields`, `tld4 explain`) and the generated
//! documentation all read them from here. Bit numbers count the 128-bit word from bit 0 of
//! the low 64-bit half, as nvdisasm's `hi:lo` ranges do. The positions were measured by
//! flipping one bit at a time under nvdisasm (docs/sources.md) and are re-checked by the
//! differential harness in `oracles/nvdisasm`.

use crate::error::DecodeError;
use crate::values::*;

pub mod arch_rows;

/// One field of the instruction word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldSpec {
    /// The project's name for the field (also the name of the [`Tld4`] member).
    pub name: &'static str,
    /// The lowest bit of the field.
    pub lo: u8,
    /// The highest bit of the field (inclusive).
    pub hi: u8,
    /// Where the name comes from: nvdisasm's own field name, or the seed table's label.
    pub source_name: &'static str,
    /// What the field means.
    pub doc: &'static str,
    /// What the field changes in an execution (`tld4 explain`'s effect column).
    pub effect: FieldEffect,
    /// Where the field's effect comes from (the row's effect doc comment).
    pub effect_source: &'static str,
}

/// What a field changes when the instruction executes: the effect column of the field table.
///
/// Each row of the table names its effect and, in a doc comment beside it, the effect's
/// source (docs/sources.md). `tld4 explain` prints [`FieldEffect::name`] in its field listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldEffect {
    /// Selects the instruction form, and with it which operands exist and how they are read.
    Operands,
    /// Decides which lanes execute (the guard predicate).
    Lanes,
    /// Names or selects what is written: destination registers, the write mask, the predicate
    /// destination.
    Writes,
    /// Names a source register the instruction reads.
    Reads,
    /// Changes the values the instruction computes.
    Value,
    /// Changes no value: a cache or scheduling hint, or a bit whose effect is modeled as none.
    Hint,
    /// Must hold one value for the word to be a legal TLD4 at all.
    Required,
    /// No effect at all, as far as any source shows.
    None,
}

impl FieldEffect {
    /// The word `tld4 explain` and `docs/fields.md` print for the effect.
    pub const fn name(self) -> &'static str {
        match self {
            FieldEffect::Operands => "operands",
            FieldEffect::Lanes => "lanes",
            FieldEffect::Writes => "writes",
            FieldEffect::Reads => "reads",
            FieldEffect::Value => "value",
            FieldEffect::Hint => "hint",
            FieldEffect::Required => "required",
            FieldEffect::None => "none",
        }
    }
}

impl FieldSpec {
    /// The field's width in bits.
    pub const fn width(&self) -> u32 {
        (self.hi - self.lo) as u32 + 1
    }
    /// The field's mask, in place.
    pub const fn mask(&self) -> u128 {
        (((1u128) << self.width()) - 1) << self.lo
    }
    /// The field's raw value in `word`.
    #[inline(always)]
    pub const fn get(&self, word: u128) -> u32 {
        ((word >> self.lo) as u32) & (((1u64 << self.width()) - 1) as u32)
    }
    /// `word` with the field set to `raw` (bits of `raw` above the width are dropped).
    #[inline(always)]
    pub const fn set(&self, word: u128, raw: u32) -> u128 {
        (word & !self.mask()) | (((raw as u128) << self.lo) & self.mask())
    }
    /// The bit range as nvdisasm writes it: `hi:lo`, or a single bit number.
    pub fn bits(&self) -> String {
        if self.hi == self.lo {
            format!("{}", self.lo)
        } else {
            format!("{}:{}", self.hi, self.lo)
        }
    }
}

/// How a field's raw bits map to its typed value.
pub trait FieldValue: Sized + Copy {
    /// The typed value of raw field bits, or why nvdisasm refuses them.
    fn from_raw(raw: u32) -> Result<Self, DecodeError>;
    /// Whether [`FieldValue::from_raw`] accepts `raw`: true exactly when it returns `Ok`
    /// (the decode fast path checks every field with this, branch-free, before reading any).
    #[inline(always)]
    fn accepts(_raw: u32) -> bool {
        true
    }
    /// Zero exactly when [`FieldValue::accepts`] `raw`, else nonzero, computed without a
    /// branch: the decode fast path ORs every field's (and the opex table's) and tests once.
    #[inline(always)]
    fn rejects(raw: u32) -> u32 {
        !Self::accepts(raw) as u32
    }
    /// The value [`FieldValue::from_raw`] gives for a `raw` that [`FieldValue::accepts`]:
    /// the same value, without the `Result` (for other raw values: some value, never a panic).
    fn from_accepted(raw: u32) -> Self;
    /// The raw field bits of the value.
    fn to_raw(self) -> u32;
    /// The meaning of the value in words, for field listings.
    fn describe(self) -> String;
}

macro_rules! plain_field_value {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            #[inline(always)]
            fn from_raw(raw: u32) -> Result<Self, DecodeError> { Ok(raw as $t) }
            #[inline(always)]
            fn from_accepted(raw: u32) -> Self { raw as $t }
            #[inline(always)]
            fn to_raw(self) -> u32 { self as u32 }
            fn describe(self) -> String { format!("{self}") }
        }
    )*};
}
plain_field_value!(u8, u16);

// SAFETY: an unsigned integer's bytes are its value, little-endian on every target the
// chunks are built for (the chunks are u64s in the target's own order, and so are these).
unsafe impl crate::fast::RawLayout for u8 {
    const BITS: u32 = 8;
}
// SAFETY: as for u8.
unsafe impl crate::fast::RawLayout for u16 {
    const BITS: u32 = 16;
}
// SAFETY: a bool is one byte, 0 (false) or 1 (true), as `from_accepted` gives for raw 0 and 1.
unsafe impl crate::fast::RawLayout for bool {
    const BITS: u32 = 1;
}

impl FieldValue for bool {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        Ok(raw != 0)
    }
    #[inline(always)]
    fn from_accepted(raw: u32) -> Self {
        raw != 0
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self as u32
    }
    fn describe(self) -> String {
        (if self { "set" } else { "clear" }).to_string()
    }
}

macro_rules! enum_field_value {
    ($($t:ty),*) => {$(
        impl FieldValue for $t {
            #[inline(always)]
            fn from_raw(raw: u32) -> Result<Self, DecodeError> { Ok(<$t>::from_raw(raw)) }
            #[inline(always)]
            fn from_accepted(raw: u32) -> Self { <$t>::from_raw(raw) }
            #[inline(always)]
            fn to_raw(self) -> u32 { self.raw() }
            fn describe(self) -> String {
                if self.name().is_empty() { "(default: nothing printed)".to_string() } else { self.name().to_string() }
            }
        }
    )*};
}
enum_field_value!(Dimension, OffsetMode, F16Mode, Eviction, Component);

macro_rules! enum_raw_layout {
    ($($t:ty),*) => {$(
        // Checked here, at compile time: the enum is one byte and each of its 2^n values has
        // its raw value as discriminant (`ALL` lists one variant per raw value, in order).
        const _: () = {
            assert!(core::mem::size_of::<$t>() == 1);
            let mut i = 0;
            while i < <$t>::ALL.len() {
                assert!(<$t>::ALL[i] as u8 as usize == i);
                i += 1;
            }
        };
        // SAFETY: `repr(u8)`, one byte; by the check above every raw value below
        // 2^BITS = ALL.len() is a variant's discriminant, and `from_accepted` (`from_raw`)
        // gives that variant; zero is a variant.
        unsafe impl crate::fast::RawLayout for $t {
            const BITS: u32 = <$t>::ALL.len().trailing_zeros();
        }
    )*};
}
enum_raw_layout!(Dimension, OffsetMode, F16Mode, Eviction, Component);

// SAFETY: `HandleForm` is `repr(u8)` with `Register = 0` (zero bytes valid), and the
// check below: the accepted raw values are the two opcodes (`accepts` is `from_opcode`), and
// bit 0 of each opcode is its variant's discriminant, which `from_accepted` gives for it.
unsafe impl crate::fast::RawLayout for HandleForm {
    const BITS: u32 = 1;
    const NARROW: bool = true;
}
const _: () = {
    assert!(HandleForm::Register as u8 == 0);
    let mut i = 0;
    while i < HandleForm::ALL.len() {
        let v = HandleForm::ALL[i];
        assert!((v.opcode() & 1) as u8 == v as u8);
        assert!(matches!(HandleForm::from_opcode(v.opcode()), Some(f) if f as u8 == v as u8));
        i += 1;
    }
};

impl FieldValue for HandleForm {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        HandleForm::from_opcode(raw as u16).ok_or(DecodeError::NotTld4 { opcode: raw as u16 })
    }
    #[inline(always)]
    fn accepts(raw: u32) -> bool {
        HandleForm::from_opcode(raw as u16).is_some()
    }
    /// The product of `raw ^ opcode` over both forms' opcodes: zero exactly when `raw` is one
    /// of them (a 12-bit raw value and two factors below 2^12: no overflow, checked below).
    #[inline(always)]
    fn rejects(raw: u32) -> u32 {
        const _: () = assert!(HandleForm::ALL.len() * 12 <= 32);
        let mut product = 1u32;
        let mut i = 0;
        while i < HandleForm::ALL.len() {
            product *= (raw & 0xfff) ^ HandleForm::ALL[i].opcode() as u32;
            i += 1;
        }
        product
    }
    #[inline(always)]
    fn from_accepted(raw: u32) -> Self {
        // An accepted opcode is one of the two: one compare tells them apart.
        if raw == HandleForm::Register.opcode() as u32 {
            HandleForm::Register
        } else {
            HandleForm::Uniform
        }
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.opcode() as u32
    }
    fn describe(self) -> String {
        match self {
            HandleForm::Register => "0xd64: TLD4, texture handle in the first Rb register (.B)",
            HandleForm::Uniform => "0xf63: TLD4, texture handle in a uniform register",
        }
        .to_string()
    }
}

// SAFETY: `repr(transparent)` over a u8, and `from_accepted` keeps the raw byte.
unsafe impl crate::fast::RawLayout for Reg {
    const BITS: u32 = 8;
}

impl FieldValue for Reg {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        Ok(Reg(raw as u8))
    }
    #[inline(always)]
    fn from_accepted(raw: u32) -> Self {
        Reg(raw as u8)
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.0 as u32
    }
    fn describe(self) -> String {
        if self.is_rz() {
            "RZ (register 255)".into()
        } else {
            format!("R{}", self.0)
        }
    }
}

// SAFETY: `repr(transparent)` over a u8, and `from_accepted` keeps the raw byte.
unsafe impl crate::fast::RawLayout for UReg {
    const BITS: u32 = 8;
}

impl FieldValue for UReg {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        Ok(UReg(raw as u8))
    }
    #[inline(always)]
    fn from_accepted(raw: u32) -> Self {
        UReg(raw as u8)
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.0 as u32
    }
    fn describe(self) -> String {
        if self.is_urz() {
            "URZ (uniform register 255)".into()
        } else {
            format!("UR{}", self.0)
        }
    }
}

// SAFETY: `repr(transparent)` over a u8, and `from_accepted` keeps the raw byte.
unsafe impl crate::fast::RawLayout for Pred {
    const BITS: u32 = 8;
}

impl FieldValue for Pred {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        Ok(Pred(raw as u8))
    }
    #[inline(always)]
    fn from_accepted(raw: u32) -> Self {
        Pred(raw as u8)
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.0 as u32
    }
    fn describe(self) -> String {
        if self.is_pt() {
            "PT (predicate 7, always true)".into()
        } else {
            format!("P{}", self.0)
        }
    }
}

// SAFETY: `repr(transparent)` over a u8, and `from_accepted` keeps the raw byte.
unsafe impl crate::fast::RawLayout for WriteMask {
    const BITS: u32 = 8;
}

impl FieldValue for WriteMask {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        Ok(WriteMask(raw as u8))
    }
    #[inline(always)]
    fn from_accepted(raw: u32) -> Self {
        WriteMask(raw as u8)
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        self.0 as u32
    }
    fn describe(self) -> String {
        let names: String = (0..4u8)
            .filter(|&c| self.has(c))
            .map(|c| Component::from_raw(c as u32).name())
            .collect();
        if names.is_empty() {
            "0x0: nothing written".into()
        } else {
            format!("{:#x}: {names}", self.0)
        }
    }
}

/// Bit 91, which nvdisasm requires to be set in every TLD4 ("Illegal instruction" otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AlwaysSet;

// SAFETY: not planned (BITS = 0); a unit struct has no bytes.
unsafe impl crate::fast::RawLayout for AlwaysSet {
    const BITS: u32 = 0;
}

impl FieldValue for AlwaysSet {
    #[inline(always)]
    fn from_raw(raw: u32) -> Result<Self, DecodeError> {
        if raw == 1 {
            Ok(AlwaysSet)
        } else {
            Err(DecodeError::Bit91Clear)
        }
    }
    #[inline(always)]
    fn accepts(raw: u32) -> bool {
        raw == 1
    }
    #[inline(always)]
    fn rejects(raw: u32) -> u32 {
        raw ^ 1
    }
    #[inline(always)]
    fn from_accepted(_raw: u32) -> Self {
        AlwaysSet
    }
    #[inline(always)]
    fn to_raw(self) -> u32 {
        1
    }
    fn describe(self) -> String {
        "1 (required)".into()
    }
}

/// Declares the fields: name, typed value, `[hi:lo]`, the source's name, a doc line, and the
/// field's [`FieldEffect`] with a doc line naming the effect's source.
/// Generates [`Tld4`], [`FIELDS`], the per-field constants in [`field`], decoding and encoding.
macro_rules! tld4_fields {
    ( $( $(#[doc = $doc:literal])+ $name:ident : $ty:ty = [$hi:literal : $lo:literal], $src:literal,
         $(#[doc = $edoc:literal])+ $effect:ident; )* ) => {
        /// One decoded SM100 TLD4 instruction: every field of the 128-bit word, typed.
        ///
        /// Bits that change nothing are kept too, so that `decode(w)?.encode() == w` for every
        /// legal `w`. The members appear in bit order; see [`FIELDS`] for their bit ranges.
        /// `repr(C)` keeps them in that order in memory, which the decode fast path's plan
        /// relies on for speed (never for correctness).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(C)]
        pub struct Tld4 {
            $( $(#[doc = $doc])+ pub $name: $ty, )*
        }

        /// The field table, in bit order: every bit of the word belongs to exactly one field.
        pub const FIELDS: &[FieldSpec] = &[
            $( FieldSpec { name: stringify!($name), lo: $lo, hi: $hi, source_name: $src,
                           doc: concat!($($doc),+), effect: FieldEffect::$effect,
                           effect_source: concat!($($edoc),+) }, )*
        ];

        /// Each field's [`FieldSpec`] by name, for code that reads or writes one field of a word.
        #[allow(non_upper_case_globals)]
        pub mod field {
            use super::{FieldEffect, FieldSpec};
            $( #[doc = concat!("The `", stringify!($name), "` field.")]
               pub const $name: FieldSpec = FieldSpec { name: stringify!($name), lo: $lo, hi: $hi,
                   source_name: $src, doc: concat!($($doc),+), effect: FieldEffect::$effect,
                   effect_source: concat!($($edoc),+) }; )*
        }

        /// Each member's [`crate::fast::FieldPlan`], from its bits and its place in [`Tld4`].
        #[allow(non_upper_case_globals)]
        mod plan {
            use super::*;
            use crate::fast::{plan, FieldPlan, RawLayout};
            $( pub(crate) const $name: FieldPlan = plan($lo, $hi,
                   core::mem::offset_of!(Tld4, $name), core::mem::size_of::<$ty>(),
                   <$ty as RawLayout>::BITS, <$ty as RawLayout>::NARROW); )*
            /// Every member's plan, in table order.
            pub(crate) const ALL: &[FieldPlan] = &[ $( $name, )* ];
        }

        impl Tld4 {
            /// Reads every field of `word` (no cross-field legality checks), field by field,
            /// stopping at the first field that refuses its bits: the detailed path, which
            /// names the error.
            #[inline]
            pub(crate) fn read_fields(word: u128) -> Result<Self, DecodeError> {
                Ok(Self { $( $name: <$ty as FieldValue>::from_raw(field::$name.get(word))?, )* })
            }

            /// Zero exactly when every field accepts its bits ([`FieldValue::rejects`]), that
            /// is when [`Tld4::read_fields`] returns `Ok`: the fields' refusals ORed as
            /// integers, so the whole check is a few masked operations and no branch.
            #[inline(always)]
            pub(crate) fn fields_rejected(word: u128) -> u32 {
                0 $( | <$ty as FieldValue>::rejects(field::$name.get(word)) )*
            }

            /// The struct's bytes for `word` as the fast path's chunks, built with shifts
            /// (the portable path): each planned member's raw bits moved to its place.
            #[inline(always)]
            pub(crate) fn portable_chunks(word: u128) -> [u64; crate::fast::CHUNKS] {
                let halves = [word as u64, (word >> 64) as u64];
                let mut chunks = [0u64; crate::fast::CHUNKS];
                $( {
                    const P: crate::fast::FieldPlan = plan::$name;
                    if P.planned {
                        chunks[P.chunk] |= P.place(halves[P.half]);
                    }
                } )*
                chunks
            }

            /// The AVX2 path's constants, from the same plan as [`Tld4::portable_chunks`].
            #[cfg(target_arch = "x86_64")]
            pub(crate) const AVX2: crate::fast_avx2::Consts =
                crate::fast_avx2::consts(&crate::fast::byte_sources(plan::ALL));

            /// Reads every field of a word whose [`Tld4::fields_rejected`] is zero, from the
            /// word's chunks: the same value as [`Tld4::read_fields`], without per-field
            /// `Result`s (the fast path). Planned members come from the chunks; the others
            /// straight from the word.
            ///
            /// # Safety
            ///
            /// `chunks` must be `word`'s chunks: [`Tld4::portable_chunks`] of it, or the
            /// AVX2 path's ([`crate::fast_avx2`] with [`Tld4::AVX2`]), which are the same.
            #[inline(always)]
            pub(crate) unsafe fn from_accepted_chunks(
                word: u128,
                chunks: [u64; crate::fast::CHUNKS],
            ) -> Self {
                // SAFETY: `Tld4` is `repr(C)` and exactly `CHUNKS` u64s long (transmute checks
                // the sizes). Each planned member's bytes hold its raw field value, below
                // 2^BITS of its `RawLayout` type, which promises that those bytes are a valid
                // value, the one `from_accepted` gives; every other byte is zero (padding, or
                // an unplanned member, for which zero bytes are valid by the same promise),
                // and each unplanned member is overwritten next.
                let mut insn = unsafe { core::mem::transmute::<[u64; crate::fast::CHUNKS], Tld4>(chunks) };
                $( {
                    const P: crate::fast::FieldPlan = plan::$name;
                    if !P.planned {
                        insn.$name = <$ty as FieldValue>::from_accepted(field::$name.get(word));
                    }
                } )*
                insn
            }

            /// The 128-bit word of this instruction. Numeric fields wider than their bit range
            /// keep only their low bits.
            #[inline(always)]
            pub fn encode(&self) -> u128 {
                let mut word = 0u128;
                $( word = field::$name.set(word, FieldValue::to_raw(self.$name)); )*
                word
            }

            /// Every field with its raw value and its meaning in words, in bit order.
            pub fn field_values(&self) -> Vec<(&'static FieldSpec, u32, String)> {
                let mut out = Vec::with_capacity(FIELDS.len());
                let mut i = 0;
                $( out.push((&FIELDS[i], FieldValue::to_raw(self.$name), FieldValue::describe(self.$name))); i += 1; )*
                let _ = i;
                out
            }
        }
    };
}

tld4_fields! {
    /// The opcode: 0xd64 (handle in a register) or 0xf63 (handle in a uniform register).
    form: HandleForm = [11:0], "seed: fixed opcode bits",
        /// The form decides where the handle is read from and which operands print (docs/sources.md, Encoding).
        Operands;
    /// The guard predicate; PT (7) executes unconditionally and prints nothing.
    guard_pred: Pred = [14:12], "seed: pred",
        /// A false guard keeps a lane from executing (docs/sources.md, Encoding).
        Lanes;
    /// Negates the guard predicate (`@!P3`).
    guard_negated: bool = [15:15], "seed: pred",
        /// Negation flips the guard (docs/sources.md, Encoding).
        Lanes;
    /// Rd: the destination of components 0-1; printed second.
    rd: Reg = [23:16], "seed: operand 2",
        /// Rd receives the first two enabled results (docs/sources.md, What ptxas emits).
        Writes;
    /// Ra: the coordinate vector ([layer], u, v or x, y, z); printed third.
    ra: Reg = [31:24], "seed: operand 3",
        /// Ra starts the coordinate vector (docs/sources.md, What ptxas emits).
        Reads;
    /// Rb: the vector of [handle], [offsets], [depth reference]; printed fourth.
    rb: Reg = [39:32], "seed: operand 4",
        /// Rb starts the handle/offsets/depth-reference vector (docs/sources.md, NAK conventions).
        Reads;
    /// URc: the uniform register holding the texture handle (form 0xf63 only; kept but unused in 0xd64).
    ur: UReg = [47:40], "seed: operand 5 (UR tables)",
        /// URc holds the warp's texture handle in form 0xf63 (docs/sources.md, What ptxas emits).
        Reads;
    /// No effect on nvdisasm's text; ptxas writes 0xff in bits 48-55.
    ignored_48_59: u16 = [59:48], "-",
        /// Flipping these bits changes nothing nvdisasm shows; modeled as no effect (docs/sources.md, Encoding).
        None;
    /// `.SCR`: ptxas sets it on every TLD4; its effect is unknown (an open question).
    scr: bool = [60:60], "seed: SCR",
        /// A guess: what `.SCR` does is unknown, modeled as changing no value (docs/sources.md, Open questions).
        Hint;
    /// The texture dimension: 2D, CUBE, ARRAY_2D, ARRAY_CUBE or INVALID0/2/4/6.
    dimension: Dimension = [63:61], "seed: operand 5/6 (SNOWFLAKE)",
        /// The dimension selects the texture kind and the Ra layout (docs/sources.md, What ptxas emits).
        Value;
    /// Rd2: the destination of components 2-3; printed first.
    rd2: Reg = [71:64], "seed: operand 1",
        /// Rd2 receives the third and fourth enabled results (docs/sources.md, What ptxas emits).
        Writes;
    /// The write mask of R, G, B, A; printed last unless 0xf.
    write_mask: WriteMask = [75:72], "seed: operand 6/7",
        /// The mask selects which results are written, packed in order (docs/sources.md, NAK conventions).
        Writes;
    /// Offsets: none, AOFFI, PTP or INVALID3 (the seed labels it 'modi 2').
    offset_mode: OffsetMode = [77:76], "seed: modi 2 (Modifier Group 1)",
        /// Offsets move the footprint and add Rb registers (docs/sources.md, NAK conventions).
        Value;
    /// `.DC`: depth compare against the reference in the last Rb register.
    depth_compare: bool = [78:78], "seed: DC",
        /// `.DC` compares each texel with a reference (docs/sources.md, What ptxas emits).
        Value;
    /// Half-precision output: none, F16.RN, F16.RZ or INVALID3 (the seed also labels it 'modi 2').
    f16_mode: F16Mode = [80:79], "seed: modi 2 (Modifier Group 2)",
        /// F16 output rounds and packs the results; the packing is a project decision (docs/sources.md, Decisions).
        Value;
    /// The predicate destination, set when the footprint is not resident; PT discards it.
    pred_dst: Pred = [83:81], "seed: operand 0",
        /// The predicate destination is set when the footprint is not resident (docs/sources.md, What ptxas emits).
        Writes;
    /// The cache eviction priority: a hint.
    eviction: Eviction = [86:84], "seed: modi 3",
        /// The eviction priority is a cache policy and changes no value (docs/sources.md, Encoding).
        Hint;
    /// The gathered component R, G, B or A.
    component: Component = [88:87], "seed: modi 4",
        /// The component selects which channel of each texel is gathered (docs/sources.md, Encoding).
        Value;
    /// No effect on nvdisasm's text.
    ignored_89: bool = [89:89], "-",
        /// Flipping the bit changes nothing nvdisasm shows; modeled as no effect (docs/sources.md, Encoding).
        None;
    /// `.NODEP`: a scheduling hint (no dependency on the result); changes no value.
    nodep: bool = [90:90], "seed: NODEP",
        /// `.NODEP` is a scheduling hint and changes no value (docs/sources.md, Encoding).
        Hint;
    /// Must be 1: nvdisasm reports "Illegal instruction" otherwise.
    bit_91: AlwaysSet = [91:91], "seed: fixed 1",
        /// nvdisasm refuses the word when the bit is clear (docs/sources.md, Encoding).
        Required;
    /// No effect on nvdisasm's text.
    ignored_92_101: u16 = [101:92], "-",
        /// Flipping these bits changes nothing nvdisasm shows; modeled as no effect (docs/sources.md, Encoding).
        None;
    /// pm_pred (nvdisasm's name): performance-monitor predicate; changes no value.
    pm_pred: u8 = [103:102], "nvdisasm: pm_pred",
        /// nvdisasm names it a performance-monitor predicate; modeled as changing no value (docs/sources.md, Encoding).
        Hint;
    /// No effect on nvdisasm's text.
    ignored_104: bool = [104:104], "-",
        /// Flipping the bit changes nothing nvdisasm shows; modeled as no effect (docs/sources.md, Encoding).
        None;
    /// usched_info (nvdisasm): stall and yield; the low 5 bits of nvdisasm's `opex` value.
    usched_info: u8 = [109:105], "nvdisasm: usched_info (seed: stall, y)",
        /// Scheduling control (stall, yield) changes no value (docs/sources.md, Encoding).
        Hint;
    /// dst_wr_sb (nvdisasm): the scoreboard (barrier) the result's write releases.
    dst_wr_sb: u8 = [112:110], "nvdisasm: dst_wr_sb (seed: r-bar, mislabelled)",
        /// A scoreboard is scheduling control and changes no value (docs/sources.md, Encoding).
        Hint;
    /// src_rel_sb (nvdisasm): the scoreboard released when the sources have been read.
    src_rel_sb: u8 = [115:113], "nvdisasm: src_rel_sb (seed: w-bar, mislabelled)",
        /// A scoreboard is scheduling control and changes no value (docs/sources.md, Encoding).
        Hint;
    /// req_bit_set (nvdisasm): the mask of scoreboards to wait on before issue.
    req_bit_set: u8 = [121:116], "nvdisasm: req_bit_set (seed: b-mask)",
        /// The wait mask is scheduling control and changes no value (docs/sources.md, Encoding).
        Hint;
    /// batch_t (nvdisasm; overlaps the reuse bits): the high 3 bits of nvdisasm's `opex` value.
    batch_t: u8 = [124:122], "nvdisasm: batch_t (seed: reuse)",
        /// Scheduling control; changes no value (docs/sources.md, Encoding).
        Hint;
    /// No effect on nvdisasm's text.
    ignored_125_127: u8 = [127:125], "-",
        /// Flipping these bits changes nothing nvdisasm shows; modeled as no effect (docs/sources.md, Encoding).
        None;
}

/// The field table as a Markdown table (the source of `docs/fields.md`).
pub fn fields_markdown() -> String {
    let mut s = String::from(
        "| bits | field | source's name | effect | meaning |\n|---|---|---|---|---|\n",
    );
    for f in FIELDS {
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} |\n",
            f.bits(),
            f.name,
            f.source_name,
            f.effect.name(),
            f.doc.trim()
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_its_effect_and_the_effects_source() {
        for f in FIELDS {
            // Bits that change nothing nvdisasm shows are the fields named `ignored_*`, and
            // only they have no effect at all.
            assert_eq!(
                f.effect == FieldEffect::None,
                f.name.starts_with("ignored"),
                "{}",
                f.name
            );
            assert!(f.effect_source.contains("(docs/sources.md,"), "{}", f.name);
            // A guessed effect says so.
            if f.effect_source.contains("unknown") {
                assert!(f.effect_source.contains("guess"), "{}", f.name);
            }
        }
        // The per-field constants carry the same effect as the table.
        assert_eq!(field::scr.effect, FieldEffect::Hint);
        assert_eq!(field::bit_91.effect, FieldEffect::Required);
        assert_eq!(
            FIELDS.iter().find(|f| f.name == "ra").map(|f| f.effect),
            Some(field::ra.effect)
        );
    }

    #[test]
    fn the_markdown_has_the_effect_column() {
        let md = fields_markdown();
        assert!(md.starts_with("| bits | field | source's name | effect | meaning |"));
        assert!(
            md.contains("| 91 | `bit_91` | seed: fixed 1 | required | "),
            "{md}"
        );
    }
}
