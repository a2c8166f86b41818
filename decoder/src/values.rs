//! The typed values of TLD4's fields: registers, predicates and the enumerated modifiers.
//!
//! Every enumerated field keeps the `INVALIDn` values that nvdisasm prints, so that each
//! legal word decodes and prints; the emulator refuses to execute them.

/// Declares an enumerated field value: variant, raw value, and nvdisasm's spelling.
///
/// The variants must be listed in raw-value order and cover every value of the field
/// (2, 4 or 8 of them), which makes `from_raw` total.
macro_rules! field_enum {
    (
        $(#[$meta:meta])*
        $name:ident : $bits:literal bits {
            $( $(#[doc = $doc:literal])* $var:ident = $val:literal => $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $name {
            $( $(#[doc = $doc])* $var = $val, )*
        }

        impl $name {
            /// Every value of the field, in raw-value order.
            pub const ALL: [Self; 1 << $bits] = [ $( Self::$var, )* ];

            /// nvdisasm's spelling of the value (empty where nvdisasm prints nothing).
            pub const fn name(self) -> &'static str {
                match self { $( Self::$var => $text, )* }
            }

            /// The raw field value.
            pub const fn raw(self) -> u32 {
                self as u32
            }

            /// The value for a raw field value (only the low bits of the field are used).
            ///
            /// A `match` on the masked value rather than an index into [`Self::ALL`]: the
            /// variants' discriminants are their raw values, so the compiler folds it into
            /// a plain truncation (no table load, no bounds check) on the decode fast path.
            #[inline(always)]
            pub const fn from_raw(raw: u32) -> Self {
                match raw & ((1 << $bits) - 1) {
                    $( $val => Self::$var, )*
                    // Unreachable: the mask keeps `raw` within the listed values.
                    _ => Self::ALL[0],
                }
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

field_enum! {
    /// The texture dimension (bits 63:61); nvdisasm prints it as an operand after the registers.
    Dimension: 3 bits {
        /// nvdisasm prints `INVALID0`; the hardware would fault.
        Invalid0 = 0 => "INVALID0",
        /// A 2D texture: Ra = {u, v}.
        Tex2D = 1 => "2D",
        /// nvdisasm prints `INVALID2`.
        Invalid2 = 2 => "INVALID2",
        /// A cube map: Ra = {x, y, z}.
        Cube = 3 => "CUBE",
        /// nvdisasm prints `INVALID4`.
        Invalid4 = 4 => "INVALID4",
        /// A 2D array: Ra = {layer, u, v}.
        Array2D = 5 => "ARRAY_2D",
        /// nvdisasm prints `INVALID6`.
        Invalid6 = 6 => "INVALID6",
        /// A cube array: Ra = {layer, x, y, z}.
        ArrayCube = 7 => "ARRAY_CUBE",
    }
}

field_enum! {
    /// Texel offsets (bits 77:76); nvdisasm's AOFFI (one offset for the whole footprint) or
    /// PTP (one offset per texel).
    OffsetMode: 2 bits {
        /// No offsets.
        None = 0 => "",
        /// `.AOFFI`: one (dx, dy) for the instruction, in one Rb register.
        Aoffi = 1 => "AOFFI",
        /// `.PTP`: four per-texel offsets, in two Rb registers.
        Ptp = 2 => "PTP",
        /// nvdisasm prints `.INVALID3`.
        Invalid3 = 3 => "INVALID3",
    }
}

field_enum! {
    /// Half-precision output (bits 80:79).
    F16Mode: 2 bits {
        /// 32-bit results.
        None = 0 => "",
        /// `.F16.RN`: results rounded to binary16, to nearest even.
        Rn = 1 => "F16.RN",
        /// `.F16.RZ`: results rounded to binary16, toward zero.
        Rz = 2 => "F16.RZ",
        /// nvdisasm prints `.INVALID3`.
        Invalid3 = 3 => "INVALID3",
    }
}

field_enum! {
    /// The cache eviction priority (bits 86:84); a hint that changes no value.
    Eviction: 3 bits {
        /// `.EF`: evict first.
        EvictFirst = 0 => "EF",
        /// The default priority: nvdisasm prints nothing.
        Normal = 1 => "",
        /// `.EL`: evict last.
        EvictLast = 2 => "EL",
        /// `.LU`: last use.
        LastUse = 3 => "LU",
        /// `.EU`: evict unchanged.
        EvictUnchanged = 4 => "EU",
        /// `.NA`: no allocate.
        NoAllocate = 5 => "NA",
        /// nvdisasm prints `.INVALID6`.
        Invalid6 = 6 => "INVALID6",
        /// nvdisasm prints `.INVALID7`.
        Invalid7 = 7 => "INVALID7",
    }
}

field_enum! {
    /// The gathered component (bits 88:87), printed right after `TLD4` (and `.SCR`).
    Component: 2 bits {
        /// Red, `TLD4.R`.
        R = 0 => "R",
        /// Green, `TLD4.G`.
        G = 1 => "G",
        /// Blue, `TLD4.B`.
        B = 2 => "B",
        /// Alpha, `TLD4.A`.
        A = 3 => "A",
    }
}

impl Dimension {
    /// True for the `INVALIDn` values, which nvdisasm prints but the hardware cannot execute.
    pub const fn is_invalid(self) -> bool {
        (self as u8) & 1 == 0
    }
    /// True for ARRAY_2D and ARRAY_CUBE, whose Ra vector starts with the layer.
    pub const fn is_array(self) -> bool {
        matches!(self, Self::Array2D | Self::ArrayCube)
    }
    /// True for CUBE and ARRAY_CUBE, whose coordinates are a direction (x, y, z).
    pub const fn is_cube(self) -> bool {
        matches!(self, Self::Cube | Self::ArrayCube)
    }
}

impl OffsetMode {
    /// The number of Rb registers that hold offsets (NAK's Rb order; docs/sources.md).
    pub const fn registers(self) -> u8 {
        match self {
            Self::None | Self::Invalid3 => 0,
            Self::Aoffi => 1,
            Self::Ptp => 2,
        }
    }
}

/// The two SM100 TLD4 opcodes (bits 11:0); of all 4,096 opcode values only these print TLD4
/// (nvdisasm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum HandleForm {
    /// Opcode 0xd64, nvdisasm's opclass `tld4_b_noConst_`: the texture handle is the first Rb
    /// register, per lane; nvdisasm prints `.B` after the component.
    Register = 0,
    /// Opcode 0xf63, nvdisasm's opclass `tld4_urc_`: the handle is a uniform register (`URc`),
    /// one for the warp. This is the form ptxas emits.
    Uniform,
}

impl HandleForm {
    /// Both forms.
    pub const ALL: [Self; 2] = [Self::Register, Self::Uniform];
    /// The 12-bit opcode of the form.
    pub const fn opcode(self) -> u16 {
        match self {
            Self::Register => 0xd64,
            Self::Uniform => 0xf63,
        }
    }
    /// The form of a 12-bit opcode, if it is one of TLD4's.
    pub const fn from_opcode(opcode: u16) -> Option<Self> {
        match opcode {
            0xd64 => Some(Self::Register),
            0xf63 => Some(Self::Uniform),
            _ => None,
        }
    }
}

/// A general-purpose register number, R0..R254; 255 is RZ (reads zero, writes vanish).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Reg(pub u8);

impl Reg {
    /// RZ, register 255.
    pub const RZ: Reg = Reg(255);
    /// True for RZ.
    pub const fn is_rz(self) -> bool {
        self.0 == 255
    }
}

/// A uniform register number, UR0..UR254; 255 is URZ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct UReg(pub u8);

impl UReg {
    /// URZ, uniform register 255.
    pub const URZ: UReg = UReg(255);
    /// True for URZ.
    pub const fn is_urz(self) -> bool {
        self.0 == 255
    }
}

/// A predicate register number, P0..P6; 7 is PT (always true, writes vanish).
///
/// Precondition: the number is 0..=7 (the predicate fields are 3 bits wide, nvdisasm bit
/// fields). Build one from an untrusted number with [`Pred::new`], which refuses larger ones;
/// a `Pred(8..)` built by hand is refused by [`crate::Tld4::try_encode`] (`TooWide`), never
/// wrapped into another predicate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Pred(pub u8);

impl Pred {
    /// The largest predicate number, PT.
    pub const MAX: u8 = 7;

    /// Predicate `n`, or `None` when `n` is above 7 (PT).
    ///
    /// ```
    /// use tld4_decoder::Pred;
    /// assert_eq!(Pred::new(3), Some(Pred(3)));
    /// assert_eq!(Pred::new(200), None);
    /// ```
    pub const fn new(n: u8) -> Option<Pred> {
        if n <= Self::MAX {
            Some(Pred(n))
        } else {
            None
        }
    }

    /// PT, predicate 7.
    pub const PT: Pred = Pred(7);
    /// True for PT.
    pub const fn is_pt(self) -> bool {
        self.0 == 7
    }
}

/// The write mask (bits 75:72): which of R, G, B, A (bit 0..3) are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct WriteMask(pub u8);

impl WriteMask {
    /// All four components; nvdisasm leaves this mask out of the text.
    pub const ALL: WriteMask = WriteMask(0xf);
    /// Whether component `c` (0 = R .. 3 = A) is written.
    pub const fn has(self, c: u8) -> bool {
        self.0 >> c & 1 != 0
    }
    /// The number of components written.
    pub const fn count(self) -> u32 {
        (self.0 & 0xf).count_ones()
    }
}
