; A long launch inside the compiled model (issue 5: at least 100,000 generated tokens with
; no divergence): qgpu asm examples/long.qasm --run --engine model
; Each of 4 lanes runs 2,400 rounds of a 32-bit linear congruential generator mixed with
; the round number, so every round emits four 4-byte values twice (mad.lo, xor), a counter
; that passes 511 (one-token values, then four-token ones), an unsigned compare and a
; backward branch: 101,713 records in all.
;
; Expected: x = the generator's state after 2,400 rounds, from x0 = tid.x, per lane
; (x = (x * 1664525 + 1013904223) ^ i for i = 0..2399), as the interpreter computes it.
.kernel long
.grid 1
.block 4
.array n 1 = 2400
.array x 4
    mov r0, %tid.x
    add r0, r0, r0
    add r0, r0, r0           ; 4i: the byte offset of element i
    mov r9, 0
    ld r1, [r9+n]            ; the number of rounds
    mov r2, 0                ; i
    mov r3, %tid.x           ; the lane's state
    mov r4, 1664525
    mov r5, 1013904223
again:
    mad.lo r3, r3, r4, r5
    xor r3, r3, r2
    add r2, r2, 1
    setp.lt.u p0, r2, r1
    @p0 bra again
    st [r0+x], r3
    exit
