//! A [`Gatherer`] of an owned texture with its borrows taken off: what preparing computed
//! (the checks passed, the value rule, the constants), kept without a lifetime, so that an
//! executor can keep it between calls that each borrow the pool anew, and attach it again
//! to the same texture for a few loads instead of preparing again.

use super::{CubeF32, Gatherer, Texels};
use crate::error::Error;
use crate::lane::LanePlan;
use crate::op::{GatherOp, Precision, Value};
use crate::placement::Placement;
use crate::sampler::Sampler;
use crate::texture::{Texture, TextureDesc};

/// [`Gatherer::new`]'s result less its borrows of the texture (see [`DetachedGatherer::attach`]).
///
/// ```
/// use tld4_textures::*;
/// let desc = TextureDesc { kind: TextureKind::Tex2D, format: Format::R8Uint, width: 2, height: 2, layers: 1 };
/// let tex = Texture::from_fields(desc, &[1, 2, 3, 4])?;
/// let op = GatherOp::new(TextureKind::Tex2D, 0);
/// let kept = DetachedGatherer::new(&tex, &Sampler::default(), &op, Precision::default())?;
/// let g = kept.attach(&tex).expect("the texture it was prepared from");
/// assert_eq!(g.gather(&GatherQuery::at(0.5, 0.5)).values, [3, 4, 2, 1]);
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DetachedGatherer {
    /// The texture's description and storage elements, checked again on attaching.
    desc: TextureDesc,
    elements: usize,
    words: usize,
    place: Placement,
    plan: LanePlan,
    value: Value,
    border: u32,
    /// The cube kernel reads the texture's faces with their apron.
    cube: bool,
    cube_f32: Option<CubeF32>,
    planar_f32: Option<[f32; 2]>,
    lanes32: bool,
}

impl DetachedGatherer {
    /// [`Gatherer::new`], detached. Errors: those of [`Gatherer::new`].
    pub fn new(
        texture: &Texture,
        sampler: &Sampler,
        op: &GatherOp,
        precision: Precision,
    ) -> Result<Self, Error> {
        let g = Gatherer::new(texture, sampler, op, precision)?;
        Ok(Self::detach(&g, texture))
    }

    /// `g` less its borrows, where `g` was made by [`Gatherer::new`] from `texture` (checked:
    /// None where `g` does not read `texture`'s storage).
    pub fn of(g: &Gatherer<'_>, texture: &Texture) -> Option<Self> {
        // (slices compared as fat pointers: the same first element and length)
        let same = match (Texels::owned(texture)?, g.texels) {
            (Texels::U8(a), Texels::U8(d)) => std::ptr::eq(a, d),
            (Texels::U16(a), Texels::U16(d)) => std::ptr::eq(a, d),
            (Texels::U32(a), Texels::U32(d)) => std::ptr::eq(a, d),
            _ => false,
        };
        same.then(|| Self::detach(g, texture))
    }

    fn detach(g: &Gatherer<'_>, texture: &Texture) -> Self {
        Self {
            desc: *texture.desc(),
            elements: g.texels.len(),
            words: g.words,
            place: g.place,
            plan: g.plan,
            value: g.value,
            border: g.border,
            cube: g.cube.is_some(),
            cube_f32: g.cube_f32,
            planar_f32: g.planar_f32,
            lanes32: g.lanes32,
        }
    }

    /// The gatherer again, borrowing `texture`: what [`Gatherer::new`] gives for the texture,
    /// sampler, op and precision this was made from, for a few loads. `texture` must be that
    /// texture (the caller's key says so, such as a [`crate::TexturePool::generation`]);
    /// None where its description or storage size differ, which no such texture has.
    #[inline]
    pub fn attach<'a>(&self, texture: &'a Texture) -> Option<Gatherer<'a>> {
        let texels = Texels::owned(texture)?;
        if *texture.desc() != self.desc || texels.len() != self.elements {
            return None;
        }
        Some(Gatherer {
            texels,
            words: self.words,
            place: self.place,
            plan: self.plan,
            value: self.value,
            border: self.border,
            residency: texture.residency(),
            cube: self.cube.then_some(texture),
            cube_f32: self.cube_f32,
            planar_f32: self.planar_f32,
            lanes32: self.lanes32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::op::{GatherQuery, GatherResult};
    use crate::texture::TextureKind;

    fn texture(kind: TextureKind, format: Format, size: u32, layers: u32, seed: u32) -> Texture {
        let desc = TextureDesc {
            kind,
            format,
            width: size,
            height: size,
            layers,
        };
        Texture::from_fn(desc, |l, x, y| {
            [x * 7 + y * 3 + l + seed, x + seed, y, l].map(|v| v % 200)
        })
        .unwrap()
    }

    fn gathered(g: &Gatherer<'_>, queries: &[GatherQuery]) -> Vec<GatherResult> {
        let mut out = vec![GatherResult::default(); queries.len()];
        g.gather_many(queries, &mut out);
        out
    }

    /// Attached again, a gatherer gathers what a new one gathers: 2D, and a seamless cube
    /// array (the cube kernel reads the texture's faces with their apron).
    #[test]
    fn attached_again_gathers_what_a_new_gatherer_gathers() {
        let queries: Vec<GatherQuery> = (0..64)
            .map(|k| {
                let f = k as f32 / 64.0;
                GatherQuery {
                    coords: [f * 1.3 - 0.2, 0.9 - f, f - 0.5],
                    layer: k % 3,
                    ..GatherQuery::at(0.0, 0.0)
                }
            })
            .collect();
        for (kind, format, layers) in [
            (TextureKind::Tex2D, Format::Rgba8Unorm, 1),
            (TextureKind::Tex2DArray, Format::R32Uint, 3),
            (TextureKind::CubeArray, Format::R32Uint, 2),
        ] {
            let tex = texture(kind, format, 8, layers, 5);
            let op = GatherOp::new(kind, 0);
            let (s, p) = (Sampler::default(), Precision::default());
            let new = Gatherer::new(&tex, &s, &op, p).unwrap();
            let kept = DetachedGatherer::new(&tex, &s, &op, p).unwrap();
            let again = kept.attach(&tex).expect("its own texture");
            assert_eq!(
                gathered(&again, &queries),
                gathered(&new, &queries),
                "{kind:?}"
            );
            let of = DetachedGatherer::of(&new, &tex).expect("made from it");
            let again = of.attach(&tex).expect("its own texture");
            assert_eq!(
                gathered(&again, &queries),
                gathered(&new, &queries),
                "{kind:?}"
            );
            // another texture of another shape is refused, and a gatherer not made from it
            let other = texture(kind, format, 4, layers, 9);
            assert!(kept.attach(&other).is_none(), "{kind:?}");
            assert!(DetachedGatherer::of(&new, &other).is_none(), "{kind:?}");
        }
    }
}
