; A loop whose trip count depends on the lane's data: the number of Collatz steps
; (x = x even ? x / 2 : 3x + 1) from n[i] down to 1. Lanes leave the loop at different
; iterations; the ones still looping have the smaller PC, so min-PC scheduling keeps
; running them (with a shrinking mask) until every lane has reached 'done'. The two
; halves of the step are guarded instructions, not branches.
;
; Expected: steps = 0, 1, 7, 8, 16, 19, 9, 5
.kernel loop
.grid 1
.block 8
.array n 8 = 1, 2, 3, 6, 7, 9, 12, 5
.array steps 8
    shl r0, %tid.x, 2        ; 4i: the byte offset of element i
    ld r1, [r0+n]            ; x = n[i]
    mov r2, 0                ; steps = 0
again:
    setp.le.u p0, r1, 1
    @p0 bra done             ; x == 1: this lane is finished
    and r3, r1, 1
    setp.eq p1, r3, 0        ; p1 = x is even
    @p1 shr.u r1, r1, 1      ; even: x = x / 2
    @!p1 mul.lo r1, r1, 3    ; odd:  x = 3x + 1
    @!p1 add r1, r1, 1
    add r2, r2, 1
    bra again
done:
    st [r0+steps], r2
    exit
