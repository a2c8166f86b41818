#version 450
// One texture gather per invocation, for tld4-lavapipe (oracles/lavapipe/src/vulkan.rs; each
// sampler type is compiled in oracles/lavapipe/src/vulkan/pipeline.rs).
// Compiled at run time by `glslangValidator -V` with these macros:
//   SAMPLER   the sampler type: [iu]sampler2D, sampler2DArray, samplerCube, samplerCubeArray,
//             or the *Shadow types for depth compare
//   COORD_N   2, 3 or 4: how many coordinates (the layer is the last one for arrays)
//   HAS_OFFSET  defined for the 2D kinds (GLSL has no offset gathers on cubes)
//   SHADOW    defined for depth compare (textureGather(sampler, P, refZ))
//   RESULT    vec4, ivec4 or uvec4
// and, for `tld4-lavapipe bench` (oracles/lavapipe/src/bench.rs) only, defined at the top:
//   GATHERS   K: each invocation does K gathers at coordinates moved by delta(k), k = 0..K-1,
//             and stores the XOR of their results' bits (so no gather is dead)
//   NO_GATHER the no-gather twin: gather_at combines its arguments instead of sampling, so
//             the twin does the same loads, coordinate math, accumulation and stores
// Offsets are not constant expressions, so glslang emits the ImageGatherExtended capability
// (Vulkan feature shaderImageGatherExtended; offsets -32..31 need minTexelGatherOffset/max).

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform SAMPLER tex;

struct Query {
    vec4 coord;   // s, t[, layer] or x, y, z[, cube]
    ivec4 off01;  // AOFFI offset in .xy; PTP offsets 0 and 1
    ivec4 off23;  // PTP offsets 2 and 3
    float dref;
    int comp;     // 0..3; ignored with SHADOW (GLSL shadow gathers have no component)
    int mode;     // 0 plain, 1 AOFFI, 2 PTP
    int pad;
};

layout(std430, set = 0, binding = 1) readonly buffer Queries { Query queries[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Results { uvec4 results[]; };
layout(push_constant) uniform Push { uint count; } pc;

#if COORD_N == 2
#define COORD vec2
#define PICK(v) v.xy
#elif COORD_N == 3
#define COORD vec3
#define PICK(v) v.xyz
#else
#define COORD vec4
#define PICK(v) v
#endif

#if COORD_N == 2
#define WIDEN(c) vec4(c, 0.0, 0.0)
#elif COORD_N == 3
#define WIDEN(c) vec4(c, 0.0)
#else
#define WIDEN(c) (c)
#endif

#if defined(SHADOW)
#define TO_BITS(r) floatBitsToUint(r)
#else
#define TO_BITS(r) RESULT_BITS(r)
#endif

#ifdef NO_GATHER
// The twin's stand-in: every argument combined into the result, no texture access.
RESULT gather_at(COORD c, float dref, int comp, ivec2 off, bool use_off) {
    uvec4 b = floatBitsToUint(WIDEN(c))
        ^ uvec4(uint(comp), uint(off.x), uint(off.y), floatBitsToUint(dref))
        ^ uvec4(use_off ? 1u : 0u);
    return RESULT(b);
}
#elif defined(SHADOW)
RESULT gather_at(COORD c, float dref, int comp, ivec2 off, bool use_off) {
#ifdef HAS_OFFSET
    if (use_off) return textureGatherOffset(tex, c, dref, off);
#endif
    return textureGather(tex, c, dref);
}
#else
#ifdef HAS_OFFSET
#define GATHER(k) if (use_off) return textureGatherOffset(tex, c, off, k); return textureGather(tex, c, k)
#else
#define GATHER(k) return textureGather(tex, c, k)
#endif
RESULT gather_at(COORD c, float dref, int comp, ivec2 off, bool use_off) {
    // The component of textureGather must be a constant expression (GLSL 4.50, 8.9.4).
    switch (comp) {
    case 0: GATHER(0);
    case 1: GATHER(1);
    case 2: GATHER(2);
    default: GATHER(3);
    }
}
#endif

// One query's gather at coordinates c (PTP: the four gathers Mesa lowers it to).
RESULT gather_query(COORD c, Query q) {
    RESULT r;
    if (q.mode == 2) {
        // Per-texel offsets (SPIR-V ConstOffsets) as Mesa lowers them (nir_lower_tex,
        // lower_tg4_offsets): four gathers, component k of the result is the (i0, j0) texel,
        // .w, of the gather with offset k.
        r.x = gather_at(c, q.dref, q.comp, q.off01.xy, true).w;
        r.y = gather_at(c, q.dref, q.comp, q.off01.zw, true).w;
        r.z = gather_at(c, q.dref, q.comp, q.off23.xy, true).w;
        r.w = gather_at(c, q.dref, q.comp, q.off23.zw, true).w;
    } else {
        r = gather_at(c, q.dref, q.comp, q.off01.xy, q.mode == 1);
    }
    return r;
}

#ifdef GATHERS
// How gather k of a query moves its coordinates: s (x) by k/64, t (y) by -k/128 and, on
// cubes, z by k/256; the layer (the last coordinate of arrays) stays. Each product is exact in
// binary32, so the one rounding of the add matches the host's (oracles/lavapipe/src/bench.rs,
// `moved`, which must compute the same; the bench's test checks that it does).
COORD delta(int k) {
    float f = float(k);
    vec4 d = vec4(f * 0.015625, f * -0.0078125, 0.0, 0.0);
#ifndef HAS_OFFSET
    d.z = f * 0.00390625;
#endif
    return PICK(d);
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    Query q = queries[i];
    uvec4 acc = uvec4(0u);
    for (int k = 0; k < GATHERS; k++) {
        acc ^= TO_BITS(gather_query(PICK(q.coord) + delta(k), q));
    }
    results[i] = acc;
}
#else
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    Query q = queries[i];
    RESULT r = gather_query(PICK(q.coord), q);
    results[i] = TO_BITS(r);
}
#endif
