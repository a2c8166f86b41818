//! The architectures nvdisasm 13.5 knows (`nvdisasm -b SMxx`) and the TLD4 family each one
//! belongs to.
//!
//! Architectures whose nvdisasm prints every TLD4 word alike share a [`Family`]; the grouping
//! was measured by `oracles/nvdisasm/arches.py`
//! (docs/sources.md, TLD4 on every architecture): the `a` and `f` variants print exactly as their plain architecture, and so
//! do SM101, SM103 and SM110 as SM100, SM121 as SM120, and SM80 to SM90a among themselves.

use core::fmt;
use core::str::FromStr;

use thiserror::Error;

/// A TLD4 family: the architectures on which nvdisasm prints every TLD4 word alike
/// (docs/sources.md, TLD4 on every architecture).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Turing (SM75): the SM80 layout with bit 59 required clear.
    Sm75,
    /// Ampere, Ada and Hopper (SM80 to SM90a): uniform-register form with a 6-bit URc and an
    /// 8-bit immediate in bits 53:46; no register-handle form 0xd64.
    Sm80,
    /// Blackwell datacenter and Thor (SM100, SM101, SM103, SM110): the project's base table.
    Sm100,
    /// SM107: nvdisasm 13.5 knows no texture instruction at all on it.
    Sm107,
    /// Blackwell consumer and DGX Spark (SM120, SM121): a second uniform register in 55:48,
    /// `.UAI` in bit 58, `.UAOFFI` for offset value 3, and a third form 0xf64.
    Sm120,
}

impl Family {
    /// Every family, oldest first.
    pub const ALL: [Family; 5] = [
        Family::Sm75,
        Family::Sm80,
        Family::Sm100,
        Family::Sm107,
        Family::Sm120,
    ];

    /// The family's name as docs/fields.md titles it (`sm_80`: its oldest architecture).
    pub const fn name(self) -> &'static str {
        match self {
            Family::Sm75 => "sm_75",
            Family::Sm80 => "sm_80",
            Family::Sm100 => "sm_100",
            Family::Sm107 => "sm_107",
            Family::Sm120 => "sm_120",
        }
    }

    /// The architectures of the family, in [`Arch::ALL`] order.
    pub fn archs(self) -> impl Iterator<Item = Arch> {
        Arch::ALL.into_iter().filter(move |a| a.family() == self)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! archs {
    ( $( $(#[doc = $doc:literal])* $var:ident = $name:literal, $nv:literal, $fam:ident; )* ) => {
        /// An architecture nvdisasm 13.5 accepts with `-b` (its `--help` lists them).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Arch {
            $( $(#[doc = $doc])* $var, )*
        }

        impl Arch {
            /// Every architecture, in nvdisasm's order.
            pub const ALL: [Arch; [$($name),*].len()] = [ $( Arch::$var, )* ];

            /// The name as ptxas and CUDA write it: `sm_90`, `sm_100a`.
            pub const fn name(self) -> &'static str {
                match self { $( Arch::$var => $name, )* }
            }

            /// The name `nvdisasm -b` takes: `SM90`, `SM100a`.
            pub const fn nvdisasm_name(self) -> &'static str {
                match self { $( Arch::$var => $nv, )* }
            }

            /// The TLD4 family (docs/sources.md, TLD4 on every architecture).
            pub const fn family(self) -> Family {
                match self { $( Arch::$var => Family::$fam, )* }
            }
        }
    };
}

archs! {
    /// Turing.
    Sm75 = "sm_75", "SM75", Sm75;
    /// Ampere (A100).
    Sm80 = "sm_80", "SM80", Sm80;
    /// Ampere (GA10x).
    Sm86 = "sm_86", "SM86", Sm80;
    /// Ampere (Orin).
    Sm87 = "sm_87", "SM87", Sm80;
    /// SM88.
    Sm88 = "sm_88", "SM88", Sm80;
    /// Ada.
    Sm89 = "sm_89", "SM89", Sm80;
    /// Hopper (H100, H200).
    Sm90 = "sm_90", "SM90", Sm80;
    /// Hopper, architecture-specific features.
    Sm90a = "sm_90a", "SM90a", Sm80;
    /// Blackwell (B200): the default architecture.
    Sm100 = "sm_100", "SM100", Sm100;
    /// SM100, architecture-specific.
    Sm100a = "sm_100a", "SM100a", Sm100;
    /// SM100, family-specific.
    Sm100f = "sm_100f", "SM100f", Sm100;
    /// SM101.
    Sm101 = "sm_101", "SM101", Sm100;
    /// SM101, architecture-specific.
    Sm101a = "sm_101a", "SM101a", Sm100;
    /// SM101, family-specific.
    Sm101f = "sm_101f", "SM101f", Sm100;
    /// Blackwell Ultra (B300).
    Sm103 = "sm_103", "SM103", Sm100;
    /// SM103, architecture-specific.
    Sm103a = "sm_103a", "SM103a", Sm100;
    /// SM103, family-specific.
    Sm103f = "sm_103f", "SM103f", Sm100;
    /// SM107 (no texture instructions in nvdisasm 13.5).
    Sm107 = "sm_107", "SM107", Sm107;
    /// SM107, architecture-specific.
    Sm107a = "sm_107a", "SM107a", Sm107;
    /// SM107, family-specific.
    Sm107f = "sm_107f", "SM107f", Sm107;
    /// Thor.
    Sm110 = "sm_110", "SM110", Sm100;
    /// SM110, architecture-specific.
    Sm110a = "sm_110a", "SM110a", Sm100;
    /// SM110, family-specific.
    Sm110f = "sm_110f", "SM110f", Sm100;
    /// Blackwell consumer (RTX 50).
    Sm120 = "sm_120", "SM120", Sm120;
    /// SM120, architecture-specific.
    Sm120a = "sm_120a", "SM120a", Sm120;
    /// SM120, family-specific.
    Sm120f = "sm_120f", "SM120f", Sm120;
    /// DGX Spark.
    Sm121 = "sm_121", "SM121", Sm120;
    /// SM121, architecture-specific.
    Sm121a = "sm_121a", "SM121a", Sm120;
    /// SM121, family-specific.
    Sm121f = "sm_121f", "SM121f", Sm120;
}

impl Default for Arch {
    /// SM100, the architecture the project started from.
    fn default() -> Self {
        Arch::Sm100
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not one of nvdisasm's architectures.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown architecture `{name}`: expected one of {}", Arch::ALL.map(Arch::name).join(", "))]
pub struct UnknownArch {
    /// The name given.
    pub name: String,
}

impl FromStr for Arch {
    type Err = UnknownArch;

    /// Reads `sm_90a`, `SM90a`, `sm90a` or `90a` (the `a`/`f` suffix in either case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        let digits = lower
            .strip_prefix("sm_")
            .or_else(|| lower.strip_prefix("sm"))
            .unwrap_or(&lower);
        Arch::ALL
            .into_iter()
            .find(|a| &a.name()[3..] == digits)
            .ok_or_else(|| UnknownArch {
                name: s.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_spellings_parse() {
        for a in Arch::ALL {
            assert_eq!(a.name().parse::<Arch>(), Ok(a));
            assert_eq!(a.nvdisasm_name().parse::<Arch>(), Ok(a));
            assert_eq!(a.to_string(), a.name());
        }
        assert_eq!("90a".parse::<Arch>(), Ok(Arch::Sm90a));
        assert_eq!("sm100F".parse::<Arch>(), Ok(Arch::Sm100f));
        let err = "sm_70".parse::<Arch>().unwrap_err();
        assert!(err.to_string().contains("sm_75"), "{err}");
        assert_eq!(Arch::default(), Arch::Sm100);
        assert_eq!(Arch::ALL.len(), 29);
    }

    #[test]
    fn every_family_has_architectures() {
        for f in Family::ALL {
            let first = f.archs().next().expect("a family has an architecture");
            assert_eq!(
                first.name(),
                f.name(),
                "a family is named by its oldest member"
            );
        }
        assert_eq!(Family::Sm100.archs().count(), 12);
        assert_eq!(Family::Sm80.archs().count(), 7);
    }
}
