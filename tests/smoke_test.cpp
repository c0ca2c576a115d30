#include <gtest/gtest.h>
#include "gpu/interp.h"
using namespace qgpu;
TEST(Smoke, Vecadd) {
  Program p = assemble(".grid 2\n.block 4\n.array a 8 = 1,2,3,4,5,6,7,8\n.array c 8\n"
                       "mov r0, %ctaid.x\nmad.lo r0, r0, %ntid.x, %tid.x\nshl r0, r0, 2\nld r1, [r0+a]\n"
                       "add r1, r1, r1\nst [r0+c], r1\nexit\n");
  Trace t = run(p, p.launch);
  EXPECT_EQ(read_array(t.final, p.arrays[1]), (std::vector<uint32_t>{2,4,6,8,10,12,14,16}));
}
