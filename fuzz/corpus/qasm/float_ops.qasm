.array x 4 = 0x3fc00000, 0x7fffffff, 0x80000000, 1
    mov r0, %tid.x
    shl r1, r0, 2
    ld r2, [r1+x]
    fma.f32 r3, r2, r2, 0f3f800000
    div.f32 r4, r3, r2
    sqrt.f32 r5, r4
    cvt.rmi.f32 r6, r5
    cvt.s32.f32 r7, r6
    setp.ltu.f32 p0, r5, r2
    selp r8, r7, r6, p0
    st [r1+x], r8
    exit
