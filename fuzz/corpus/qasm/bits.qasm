; Runs inside the compiled model end to end: qgpu asm examples/bits.qasm --run --engine model
; The bit-counting and bit-order ops on per-lane words, the edge cases included: popc (set
; bits), clz (leading zero bits; clz 0 = 32) and brev (the 32 bits reversed), and a
; uniform operand (every lane the same immediate: one broadcast value record).
; pop[i] = popc(a[i]), lz[i] = clz(a[i]), rev[i] = brev(a[i]), mix[i] = popc(brev(a[i]) ^ a[i]) + clz(0x00ffff00)
.kernel bits
.grid 1
.block 8
.array a 8 = 0, -1, 1, -2147483648, 305419896, 255, 65536, -559038737
.array pop 8
.array lz 8
.array rev 8
.array mix 8
    mov r0, %tid.x
    shl r0, r0, 2                  ; the byte offset of element tid
    ld r1, [r0+a]
    popc r2, r1
    st [r0+pop], r2
    clz r3, r1
    st [r0+lz], r3
    brev r4, r1
    st [r0+rev], r4
    xor r5, r4, r1
    popc r5, r5
    mov r6, 16776960
    clz r6, r6
    add r5, r5, r6
    st [r0+mix], r5
    exit
