// vectorized_float4: y = x with each group of four floats reversed, four at a time (float4 loads and stores via reinterpret_cast, the result built with make_float4), the last n%4 copied by one thread; a float2 scale of 2 floats at a time
// from: NVIDIA Developer Blog, "CUDA Pro Tip: Increase Performance with Vectorized Memory Access" (Justin Luitjens, 2013): its device_copy_vector4_kernel (grid-stride loop over reinterpret_cast vector pointers, remainder in one thread) on float data, as the post describes, with the components reversed; scale_vector2 its float2 form with a multiply; written for this corpus
// run: --grid 2 --block 4 --kernel reverse_vector4 --arg n=22 --arg x=[-8.66,-3.49,-9.93,-4.34,5.05,3.88,-0.603,5.07,-0.98,7.29,2.2,-7.21,1.33,-0.464,0.715,-5.7,3.91,-6.22,-4.01,-5.21,-4.66,-6.38] --arg y=[5.28,2.9,-1.81,-6.04,3.53,9.39,-1.45,7.02,-9.28,0.556,-5.97,-0.115,2.23,7.12,0.459,7.38,-3.46,-7.43,-0.701,4.3,4.16,-9.27]
// run: --grid 1 --block 8 --kernel scale_vector2 --arg n=13 --arg a=-0.25 --arg x=[-8.18,6.84,2.01,-5.75,5.59,1.89,6.56,2.24,4.47,5.5,-3.12,-8.08,7.96]
// run: --grid 3 --block 4 --kernel reverse_vector4 --arg n=8 --arg x=[1,2,3,4,5,6,7,8] --arg y=[0.5,0.5,0.5,0.5,-1,-1,-1,-1]
__global__ void reverse_vector4(int n, const float *__restrict__ x, float *__restrict__ y) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = idx; i < n / 4; i += blockDim.x * gridDim.x) {
    float4 v = reinterpret_cast<const float4 *>(x)[i];
    reinterpret_cast<float4 *>(y)[i] = make_float4(v.w, v.z, v.y, v.x);
  }

  // in only one thread, process final elements (if there are any)
  int remainder = n % 4;
  if (idx == n / 4 && remainder != 0) {
    while (remainder) {
      int idx = n - remainder--;
      y[idx] = x[idx];
    }
  }
}

__global__ void scale_vector2(int n, float a, float *x) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = idx; i < n / 2; i += blockDim.x * gridDim.x) {
    float2 v = reinterpret_cast<float2 *>(x)[i];
    v.x *= a;
    v.y *= a;
    reinterpret_cast<float2 *>(x)[i] = v;
  }

  // in only one thread, process final element (if there is one)
  if (idx == n / 2 && n % 2 == 1) x[n - 1] *= a;
}
