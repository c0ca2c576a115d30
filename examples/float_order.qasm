; Runs inside the compiled model end to end: qgpu asm examples/float_order.qasm --run --engine model
; The twelve binary32 compares on four lanes' edge pairs, short enough for llama.cpp to
; generate it (tests/llamacpp_state_test.cpp): +0 against -0 (equal), -1 against -2 (both
; negative: the larger bits are the smaller float), a NaN against 1 (unordered), the
; smallest negative subnormal against -0. Each `pred` record carries the four lanes' bits;
; mn[i] = min(x[i], y[i]) (-0 below +0, a NaN gives the other operand).
.kernel float_order
.grid 1
.block 4
.array x 4 = 0, 0fbf800000, 0f7fc00000, 0f80000001
.array y 4 = 0f80000000, 0fc0000000, 0f3f800000, 0f80000000
.array mn 4
    shl r0, %tid.x, 2
    ld r1, [r0+x]
    ld r2, [r0+y]
    setp.eq.f32 p0, r1, r2
    setp.ne.f32 p0, r1, r2
    setp.lt.f32 p0, r1, r2
    setp.le.f32 p0, r1, r2
    setp.gt.f32 p0, r1, r2
    setp.ge.f32 p0, r1, r2
    setp.equ.f32 p0, r1, r2
    setp.neu.f32 p0, r1, r2
    setp.ltu.f32 p0, r1, r2
    setp.leu.f32 p0, r1, r2
    setp.gtu.f32 p0, r1, r2
    setp.geu.f32 p0, r1, r2
    min.f32 r3, r1, r2
    st [r0+mn], r3
    exit
