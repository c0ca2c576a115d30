// simple_atomic_intrinsics: every thread applies atomicAdd/Sub/Exch/Max/Min/Inc/Dec/CAS/And/Or/Xor to g_odata[0..10]
// from: NVIDIA cuda-samples, 0_Introduction/simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh (testKernel, as written except two lines: the sample's atomicExch(&g_odata[2], tid) and atomicCAS(&g_odata[7], tid - 1, tid) leave a word that depends on the order threads run in, which its host check accepts and this corpus cannot; here every thread exchanges in 3 and swaps 0 for 7), 16-thread blocks
// run: --grid 2 --block 16 --arg g_odata=[0,0,0,0,0,0,0,0,-1,0,0]
// run: --grid 1 --block 8 --arg g_odata=[5,100,9,-7,7,15,3,0,255,16,-1]
// run: --grid 3 --block 4 --arg g_odata=[-2147483648,-2147483648,0,100,-100,-1,140,1,-1,1,12345]
__global__ void testKernel(int *g_odata) {
  // access thread id
  const unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;

  // Test various atomic instructions

  // Arithmetic atomic instructions

  // Atomic addition
  atomicAdd(&g_odata[0], 10);

  // Atomic subtraction (final should be 0)
  atomicSub(&g_odata[1], 10);

  // Atomic exchange
  atomicExch(&g_odata[2], 3);

  // Atomic maximum
  atomicMax(&g_odata[3], tid);

  // Atomic minimum
  atomicMin(&g_odata[4], tid);

  // Atomic increment (modulo 17+1)
  atomicInc((unsigned int *)&g_odata[5], 17);

  // Atomic decrement
  atomicDec((unsigned int *)&g_odata[6], 137);

  // Atomic compare-and-swap
  atomicCAS(&g_odata[7], 0, 7);

  // Bitwise atomic instructions

  // Atomic AND
  atomicAnd(&g_odata[8], 2 * tid + 7);

  // Atomic OR
  atomicOr(&g_odata[9], 1 << tid);

  // Atomic XOR
  atomicXor(&g_odata[10], tid);
}
