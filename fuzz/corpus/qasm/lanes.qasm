; Runs inside the compiled model end to end: qgpu asm examples/lanes.qasm --run --engine model
; It uses only the ops the model's ALU has so far (mov, add, sub, ld, st, bar, exit; see
; docs/design.md §3): per-lane and broadcast values, 4-byte values, loads, stores, a
; barrier and two waves (3 CUDA blocks of 8 threads, 2 resident at once). out[i] is
; a[i] + warp - lane + 1000000; the last wave's block writes last.
.kernel lanes
.grid 3
.block 8
.array a 8 = 5, -3, 100000, 7, 0, -2147483648, 2147483647, 300
.array out 8
.array base 1
    mov r0, %tid.x
    add r0, r0, r0
    add r0, r0, r0                 ; 4 tid: the byte offset of element tid
    ld r1, [r0+a]
    add r2, r1, %warpid
    sub r3, r2, %laneid
    mov r5, 1000000                ; the same for every lane: one record
    add r4, r3, r5
    bar
    st [r0+out], r4
    sub r6, %ntid.x, 8
    st [r6+base], r5
    exit
