// Translation unit B: the same shape as A with another component, so that a device-linked
// program holds two copies of the reciprocal helper (nvdisasm names the second `...__1`).
extern "C" __global__ void gather_b(cudaTextureObject_t tex, float4 *out, float x)
{
    out[threadIdx.x] = tex2Dgather<float4>(tex, 0.25f, 1.0f / x, 2);
}
