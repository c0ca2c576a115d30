; Runs inside the compiled model end to end: qgpu asm examples/float_compare.qasm --run --engine model
; The binary32 compares, min, max, neg and abs (docs/isa.md, "Floating point") on 16 pairs
; of edge values, one pair a lane: +-0 both ways, both negative, NaNs (quiet, signalling,
; negative, with payloads) against numbers and each other, infinities, subnormals, the
; largest float, equal values. Operands from registers, an immediate and %tid.x.
; cmp[i]: bit k is setp.<k>.f32 x[i], y[i] for k = eq ne lt le gt ge equ neu ltu leu gtu geu,
; bit 12: x[i] < +0 (immediate), 13: -0 <= y[i] (immediate first), 14: x[i] > %tid.x's
; bits, 15: y[i] unordered-or-equal %laneid's bits;
; then x[i] = min(x[i], y[i]), y[i] = max(x[i], y[i]), ng[i] = -x[i], ab[i] = |y[i]|,
; mt[i] = max(x[i], %tid.x's bits), mz[i] = min(y[i], -0).
.kernel float_compare
.grid 1
.block 16
.array x 16 = 0, 0f80000000, 0f3f800000, 0fbf800000, 0f7fc00000, 0f3f800000, 0f7f800001, 0f7f800000, 1, 0f80000001, 0f40400000, 0fc0b00000, 0f7f7fffff, 0f80000000, 0f80000000, 0f42c80000
.array y 16 = 0f80000000, 0, 0f40000000, 0fc0000000, 0f3f800000, 0fffc00001, 0fffffffff, 0fff800000, 0, 0f80000000, 0f40400000, 0f40b00000, 0f7f800000, 0fbf800000, 1, 0f80000000
.array cmp 16
.array ng 16
.array ab 16
.array mt 16
.array mz 16
    mov r0, %tid.x
    shl r0, r0, 2
    ld r1, [r0+x]
    ld r2, [r0+y]
    mov r4, 0
    mov r11, 0
    setp.eq.f32 p0, r1, r2
    selp r3, 1, r11, p0
    or r4, r4, r3
    setp.ne.f32 p0, r1, r2
    selp r3, 2, r11, p0
    or r4, r4, r3
    setp.lt.f32 p0, r1, r2
    selp r3, 4, r11, p0
    or r4, r4, r3
    setp.le.f32 p0, r1, r2
    selp r3, 8, r11, p0
    or r4, r4, r3
    setp.gt.f32 p0, r1, r2
    selp r3, 16, r11, p0
    or r4, r4, r3
    setp.ge.f32 p0, r1, r2
    selp r3, 32, r11, p0
    or r4, r4, r3
    setp.equ.f32 p0, r1, r2
    selp r3, 64, r11, p0
    or r4, r4, r3
    setp.neu.f32 p0, r1, r2
    selp r3, 128, r11, p0
    or r4, r4, r3
    setp.ltu.f32 p0, r1, r2
    selp r3, 256, r11, p0
    or r4, r4, r3
    setp.leu.f32 p0, r1, r2
    selp r3, 512, r11, p0
    or r4, r4, r3
    setp.gtu.f32 p0, r1, r2
    selp r3, 1024, r11, p0
    or r4, r4, r3
    setp.geu.f32 p0, r1, r2
    selp r3, 2048, r11, p0
    or r4, r4, r3
    setp.lt.f32 p1, r1, 0f00000000
    selp r3, 4096, r11, p1
    or r4, r4, r3
    setp.le.f32 p2, 0f80000000, r2
    selp r3, 8192, r11, p2
    or r4, r4, r3
    setp.gt.f32 p3, r1, %tid.x
    selp r3, 16384, r11, p3
    or r4, r4, r3
    setp.equ.f32 p0, r2, %laneid
    selp r3, 32768, r11, p0
    or r4, r4, r3
    st [r0+cmp], r4
    min.f32 r5, r1, r2
    max.f32 r6, r1, r2
    neg.f32 r7, r1
    abs.f32 r8, r2
    max.f32 r9, r1, %tid.x
    min.f32 r10, r2, 0f80000000
    st [r0+x], r5
    st [r0+y], r6
    st [r0+ng], r7
    st [r0+ab], r8
    st [r0+mt], r9
    st [r0+mz], r10
    exit
