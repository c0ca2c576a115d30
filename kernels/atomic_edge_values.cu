// atomic_edge_values: atomicInc / atomicDec at their wrap points (limits 0, 1 and 0xffffffff), atomicAnd/Or/Xor on unsigned words, and the float atomicAdd at -0, infinities and NaN (one add each, in any order the same result)
// from: CUDA C++ Programming Guide, "Atomic Functions" (the definitions of atomicInc: ((old >= val) ? 0 : (old+1)), atomicDec: (((old == 0) || (old > val)) ? val : (old-1)), atomicAnd/Or/Xor and float atomicAdd); written for this corpus to probe them
// run: --grid 2 --block 4 --arg inc=[0,5,-1,-2,7,0] --arg dec=[0,1,-1,3,0,9] --arg bits=[-1,0,0,255] --arg f=[-0,0,inf,-0,0f7fc00001,1e38]
// run: --grid 1 --block 3 --arg inc=[1,1,-1,-1,0,0] --arg dec=[2,0,-2,2,5,5] --arg bits=[12345,-65536,-1,0] --arg f=[1,-0,-inf,0,1,3e38]
__global__ void atomic_edges(unsigned int *inc, unsigned int *dec, unsigned int *bits, float *f) {
  const unsigned int t = blockIdx.x * blockDim.x + threadIdx.x;
  atomicInc(&inc[0], 0u);           // always 0
  atomicInc(&inc[1], 1u);           // 0, 1, 0, 1, ...
  atomicInc(&inc[2], 0xffffffffu);  // wraps only from 0xffffffff
  atomicInc(&inc[3], 0xffffffffu);
  atomicInc(&inc[4], 3u);           // above the limit: to 0 first
  atomicInc(&inc[5], 2u);
  atomicDec(&dec[0], 0u);           // always 0
  atomicDec(&dec[1], 1u);
  atomicDec(&dec[2], 0xffffffffu);
  atomicDec(&dec[3], 2u);
  atomicDec(&dec[4], 0xffffffffu);  // 0 -> 0xffffffff
  atomicDec(&dec[5], 4u);           // above the limit: to the limit first
  atomicAnd(&bits[0], ~(1u << t));
  atomicOr(&bits[1], 1u << (t + 4));
  atomicXor(&bits[2], 0x80000001u);
  atomicXor(&bits[3], t * 3u);
  atomicAdd(&f[0], -0.0f);          // -0 + -0 = -0
  atomicAdd(&f[1], -0.0f);          // +0 + -0 = +0
  atomicAdd(&f[2], t == 0 ? __int_as_float(0xff800000) : 1.0f);  // inf + -inf: NaN
  atomicAdd(&f[3], 0.0f);
  atomicAdd(&f[4], 1.0f);           // a NaN input: the sum is the canonical NaN
  atomicAdd(&f[5], 1e38f);          // overflows to inf
}
