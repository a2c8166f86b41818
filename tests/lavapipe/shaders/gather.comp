#version 450
// One texture gather per invocation, for tld4-lavapipe (tests/lavapipe/src/vulkan.rs).
// Compiled at run time by `glslangValidator -V` with these macros:
//   SAMPLER   the sampler type: [iu]sampler2D, sampler2DArray, samplerCube, samplerCubeArray,
//             or the *Shadow types for depth compare
//   COORD_N   2, 3 or 4: how many coordinates (the layer is the last one for arrays)
//   HAS_OFFSET  defined for the 2D kinds (GLSL has no offset gathers on cubes)
//   SHADOW    defined for depth compare (textureGather(sampler, P, refZ))
//   RESULT    vec4, ivec4 or uvec4
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

#ifdef SHADOW
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

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    Query q = queries[i];
    COORD c = PICK(q.coord);
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
#if defined(SHADOW)
    results[i] = floatBitsToUint(r);
#else
    results[i] = RESULT_BITS(r);
#endif
}
