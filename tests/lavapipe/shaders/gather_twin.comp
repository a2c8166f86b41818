#version 450
// The no-gather twin of gather.comp for `tld4-lavapipe bench` (tests/lavapipe/src/bench.rs):
// the same interface, macros, query load and result store, but no texture access, so that
// its dispatch time, subtracted from gather.comp's, leaves the cost of the gathers.

layout(local_size_x = 64) in;

layout(set = 0, binding = 0) uniform SAMPLER tex;

struct Query {
    vec4 coord;
    ivec4 off01;
    ivec4 off23;
    float dref;
    int comp;
    int mode;
    int pad;
};

layout(std430, set = 0, binding = 1) readonly buffer Queries { Query queries[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Results { uvec4 results[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    Query q = queries[i];
    // Every field the gather shader reads, combined so that none is optimised away.
    results[i] = floatBitsToUint(q.coord) ^ uvec4(q.off01 ^ q.off23)
        ^ uvec4(floatBitsToUint(q.dref), uint(q.comp), uint(q.mode), 0u);
}
