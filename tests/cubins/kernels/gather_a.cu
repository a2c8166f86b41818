// Translation unit A of tests/cubins/build.sh's CUDA shapes: a tex2Dgather kernel (nvcc lowers
// it to PTX tld4, ptxas to SASS TLD4) that also divides, so that 1.0f / x links libdevice's
// reciprocal slow path, a local helper function (`__cuda_sm20_rcp_rn_f32_slowpath`).
extern "C" __global__ void gather_a(cudaTextureObject_t tex, float4 *out, float x)
{
    out[threadIdx.x] = tex2Dgather<float4>(tex, 1.0f / x, 0.5f, 0);
}
