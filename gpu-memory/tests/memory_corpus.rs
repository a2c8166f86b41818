//! The golden lavapipe corpus (tests/golden/lavapipe_gather.json) through GPU memory: every
//! case's texture and sampler converted to the memory form (block-linear at every block
//! height the case allows, and pitch-linear for 2D) gives the owned-texture path's results,
//! query for query, and the generic pipeline over the owned texture agrees too.

use std::path::PathBuf;

use tld4_gather_cases::{self as cases, CasesFile};
use tld4_gpu_memory::*;
use tld4_textures::*;

fn corpus() -> CasesFile {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/lavapipe_gather.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    cases::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bytes_per_texel(f: Format) -> u32 {
    f.texel_bytes()
}

#[test]
fn the_corpus_gathers_alike_from_owned_textures_and_from_memory() {
    let file = corpus();
    let (mut bl_queries, mut pitch_queries, mut owned_generic, mut bl_refused) = (0, 0, 0, 0);
    for (ci, case) in file.cases.iter().enumerate() {
        let p = cases::prepare(case, ci).unwrap();
        let fmt = p.texture.format();
        let mut layouts = vec![LayoutChoice::BlockLinear {
            gobs_per_block_height_log2: (ci % 6) as u8,
        }];
        if p.texture.kind() == TextureKind::Tex2D {
            layouts.push(LayoutChoice::Pitch {
                row_alignment: 32 << (ci % 3),
            });
        }
        for (li, layout) in layouts.into_iter().enumerate() {
            let base = 0x1_0000_0000u64 + 0x10_0000 * li as u64;
            let image = match pool_image(&[(&p.texture, &p.sampler, layout)], base) {
                Ok(i) => i,
                Err(e) => {
                    // only what the memory form cannot express is refused
                    assert!(e.is_not_modeled(), "case {ci}: {e}");
                    assert!(
                        matches!(layout, LayoutChoice::BlockLinear { .. })
                            && bytes_per_texel(fmt) < 4,
                        "case {ci} ({fmt:?}, {layout:?}) refused: {e}"
                    );
                    bl_refused += 1;
                    continue;
                }
            };
            let pool = MemoryPool::new(&image.memory, image.header_pool, image.sampler_pool);
            for (qi, q) in case.queries.iter().enumerate() {
                let (op, query) =
                    cases::query(case, q, &format!("cases[{ci}].queries[{qi}]")).unwrap();
                let owned = Gatherer::new(&p.texture, &p.sampler, &op, p.precision);
                let mem = pool.gatherer(Handle(0), &op, p.precision);
                let (owned, mem) = match (owned, mem) {
                    (Ok(o), Ok(m)) => (o, m),
                    (Err(a), Err(MemTexError::Texture(b))) => {
                        assert_eq!(a, b, "case {ci} query {qi}: the two refuse differently");
                        continue;
                    }
                    (a, b) => panic!(
                        "case {ci} query {qi}: owned {:?}, memory {:?}",
                        a.err(),
                        b.err()
                    ),
                };
                let want = owned.gather(&query);
                let mut texels = LaneTexels::default();
                let got = mem.gather_with_addresses(&query, &mut texels).unwrap();
                assert_eq!(got, want, "case {ci} query {qi} {layout:?}: {query:?}");
                // every texel the footprint reads lies in the texture's bytes
                for t in texels.texels {
                    if let TexelAddress::Texel { address, bytes } = t {
                        let mut buf = vec![0u8; bytes as usize];
                        image.memory.read(address, &mut buf).unwrap();
                    }
                }
                match layout {
                    LayoutChoice::BlockLinear { .. } => bl_queries += 1,
                    LayoutChoice::Pitch { .. } => pitch_queries += 1,
                }
                if li == 0 {
                    let generic =
                        SiteGatherer::new(&p.texture, &p.sampler, &op, p.precision).unwrap();
                    assert_eq!(
                        generic.gather(&query).unwrap(),
                        want,
                        "case {ci} query {qi}: generic owned"
                    );
                    owned_generic += 1;
                }
            }
        }
    }
    println!(
        "block-linear: {bl_queries} queries; pitch: {pitch_queries}; generic over owned: {owned_generic}; block-linear refused (1-/2-byte texels): {bl_refused} cases"
    );
    assert!(bl_queries >= 10_000, "{bl_queries}");
    assert!(pitch_queries >= 5_000, "{pitch_queries}");
    assert!(owned_generic >= 10_000, "{owned_generic}");
}
