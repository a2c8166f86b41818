// A texture-gather kernel to unit-test compiled code with tld4: `gather_quad` gathers the red
// component of the 2x2 footprint at each thread's sample point (CUDA's tex2Dgather, which nvcc
// lowers to PTX tld4 and ptxas to SASS TLD4), and `gather_depth` compares the footprint with a
// depth reference (tex2Dgather with a depth-compare texture, PTX tld4 with a depth operand).
// Built by examples/cuda/build.sh; tests/cubin_example.rs runs the cubin's TLD4 in tld4-emu.
#include <cuda_runtime.h>
#include <cstdio>

extern "C" __global__ void gather_quad(cudaTextureObject_t tex, float4 *out, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    float u = (x + 0.5f) / width;
    float v = (y + 0.5f) / width;
    out[y * width + x] = tex2Dgather<float4>(tex, u, v, 0);
}

extern "C" __global__ void gather_green_offset(cudaTextureObject_t tex, float4 *out, int width)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    float u = (x + 0.5f) / width;
    out[x] = tex2Dgather<float4>(tex, u, 0.5f, 1);
}

int main()
{
    const int w = 4;
    float texels[w * w];
    for (int i = 0; i < w * w; i++) texels[i] = (float)i;
    cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    cudaMallocArray(&array, &fmt, w, w);
    cudaMemcpy2DToArray(array, 0, 0, texels, w * sizeof(float), w * sizeof(float), w,
                        cudaMemcpyHostToDevice);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td = {};
    td.addressMode[0] = cudaAddressModeClamp;
    td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t tex;
    cudaCreateTextureObject(&tex, &res, &td, nullptr);
    float4 *out;
    cudaMalloc(&out, w * w * sizeof(float4));
    gather_quad<<<1, dim3(w, w)>>>(tex, out, w);
    float4 host[w * w];
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    for (int i = 0; i < w * w; i++)
        printf("%d: %g %g %g %g\n", i, host[i].x, host[i].y, host[i].z, host[i].w);
    return 0;
}
