; Runs inside the compiled model end to end: qgpu asm examples/loops.qasm --run --engine model
; A loop with a trip count from memory, so the lanes diverge and reconverge (min-PC), with
; signed and unsigned compares, predicate logic and guarded instructions: only ops the
; model's ALU has so far (docs/design.md §3).
;
; Expected: sum = 100, 100, 103, 110 (100 + 0 + 1 + ... + n - 1), big = 0, 1, 1, 0
; (a[i] above 2^31 unsigned, or below 0 signed: both, as words), even = 1, 0, 1, 0
.kernel loops
.grid 1
.block 4
.array n 4 = 0, 1, 3, 5
.array a 4 = 7, -1, -2147483648, 2147483647
.array sum 4
.array big 4
.array even 4
    mov r0, %tid.x
    add r0, r0, r0
    add r0, r0, r0           ; 4i: the byte offset of element i
    ld r1, [r0+n]
    mov r2, 0                ; i
    mov r3, 100              ; the running sum
again:
    setp.ge.s p0, r2, r1
    @p0 bra done
    add r3, r3, r2
    add r2, r2, 1
    bra again
done:
    st [r0+sum], r3
    ld r4, [r0+a]
    setp.ge.u p1, r4, -2147483648   ; unsigned: the top bit is set
    setp.lt.s p2, r4, 0             ; signed: negative
    and.pred p3, p1, p2
    mov r5, 0
    @p3 mov r5, 1
    st [r0+big], r5
    setp.eq p0, %laneid, 0
    setp.eq p1, %laneid, 2
    or.pred p2, p0, p1
    not.pred p3, p2
    xor.pred p3, p3, 1              ; p3 = p2
    mov r6, 0
    @p3 add r6, r6, 1
    st [r0+even], r6
    exit
