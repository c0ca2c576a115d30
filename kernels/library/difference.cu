// difference: out[0] = a - b for two 32-bit integers (the host rejects a difference that
// would overflow). Parameters: in (2 words: a, b), out (1 word).
// The operands come in memory, not as scalar parameters: a scalar is a compile-time constant,
// and clang would fold the answer into the program instead of the machine computing it.
// Launch: one CUDA block of one thread.
// run: --grid 1 --block 1 --arg in=[100,58] --arg out=[0]
// run: --grid 1 --block 1 --arg in=[-7,12] --arg out=[0]
extern "C" __global__ void difference(const int *in, int *out) {
  out[0] = in[0] - in[1];
}
