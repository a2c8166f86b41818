//! The phases: the table (`PHASES`, each with what it measures) and the risky variants, one
//! process each; each phase's gathers live in the module of its subject.

use serde_json::Value;

use crate::patch;

use super::context::Ctx;

pub(crate) mod arrays;
pub(crate) mod basics;
pub(crate) mod coordinates;
pub(crate) mod pitch;
pub(crate) mod values;
pub(crate) mod variants;

use arrays::{phase_cube, phase_layers};
use basics::{phase_basics, phase_info};
use coordinates::{phase_address, phase_offsets, phase_subtexel};
use pitch::phase_pitch;
use values::{phase_components, phase_dc, phase_f16, phase_unorm};
use variants::{phase_masks, phase_pred, phase_scr};

/// One phase.
pub struct Phase {
    /// Its name.
    pub name: &'static str,
    /// What it measures.
    pub about: &'static str,
    /// Whether it runs patched variants only (then it runs from the sm_90 cubin only).
    pub patched_only: bool,
    pub(crate) run: fn(&mut Ctx) -> Result<Value, String>,
}

/// Every phase, in run order (the risky variants come after these, one process each).
pub const PHASES: &[Phase] = &[
    Phase {
        name: "info",
        patched_only: false,
        about: "device attributes and a smoke gather",
        run: phase_info,
    },
    Phase {
        name: "basics",
        patched_only: false,
        about: "gather order at texel centres; raw-patched kernels against ptxas's own",
        run: phase_basics,
    },
    Phase {
        name: "subtexel",
        patched_only: false,
        about: "1-ulp coordinate sweeps across texel boundaries: sub-texel precision and rounding",
        run: phase_subtexel,
    },
    Phase {
        name: "unorm",
        patched_only: false,
        about: "UNORM/SNORM 8 and 16, HALF -> f32 for every code; 8-bit integer reads",
        run: phase_unorm,
    },
    Phase {
        name: "components",
        patched_only: false,
        about: "components R, G, B, A of 1-, 2- and 4-channel textures",
        run: phase_components,
    },
    Phase {
        name: "address",
        patched_only: false,
        about:
            "address modes, border colours, coordinates outside [0, 1], unnormalized coordinates",
        run: phase_address,
    },
    Phase {
        name: "offsets",
        patched_only: false,
        about: "AOFFI through PTX and raw registers; PTP",
        run: phase_offsets,
    },
    Phase {
        name: "f16",
        patched_only: true,
        about: "F16.RN / F16.RZ packing and rounding",
        run: phase_f16,
    },
    Phase {
        name: "masks",
        patched_only: true,
        about: "write masks, Rd2 = RZ, eviction and NODEP",
        run: phase_masks,
    },
    Phase {
        name: "pred",
        patched_only: false,
        about: "predicate destination on a sparse (unmapped) texture",
        run: phase_pred,
    },
    Phase {
        name: "cube",
        patched_only: false,
        about: "cube maps: faces, edges, corners, ties, unnormalized directions, cube arrays",
        run: phase_cube,
    },
    Phase {
        name: "layers",
        patched_only: false,
        about: "array layer selection and clamping, through PTX and raw registers",
        run: phase_layers,
    },
    Phase {
        name: "dc",
        patched_only: false,
        about: "depth compare (.DC) with CUDA's sampler, which has no compare function",
        run: phase_dc,
    },
    Phase {
        name: "scr",
        patched_only: true,
        about: ".SCR set against clear",
        run: phase_scr,
    },
    Phase {
        name: "pitch",
        patched_only: false,
        about: "a texture over pitch-linear device memory (PITCH2D) against the memory-form model",
        run: phase_pitch,
    },
];

/// The risky variants, each a phase `risky:<variant>` of its own.
pub fn risky_phases() -> Vec<String> {
    patch::variants()
        .into_iter()
        .filter(|v| v.risky)
        .map(|v| format!("risky:{}", v.name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phase_variant_exists() {
        for v in [
            "2d",
            "2d_aoffi",
            "2d_ptp",
            "2d_ptp_dc",
            "a2d_ptp",
            "f16rn_mf",
            "f16rz_mf",
            "pred_pt",
            "pred_p1",
            "cube",
            "scr_cube",
            "acube",
            "a2d",
            "2d_dc",
            "scr",
            "same_2d_aoffi_dc",
        ] {
            assert!(patch::variant(v).is_some(), "{v}");
        }
        assert_eq!(risky_phases().len(), 6);
    }
}
