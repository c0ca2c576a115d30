; Sum of 16 values by one CUDA block of 16 threads (4 warps): a tree reduction in a
; scratch array. Each thread copies in[t] to buf[t]; then at each level s = 8, 4, 2, 1
; thread t < s adds buf[t + s] into buf[t]. A level reads words the previous level
; wrote in other warps, so a `bar` separates the levels. Addresses are bytes, so the
; kernel keeps t and s as byte offsets 4t and 4s (element t of an array is at name + 4t).
;
; Expected: out = 1360 (10 + 20 + ... + 160)
;           buf = 1360, 720, 360, 400, 180, 200, 220, 240, 90, 100, ..., 160
;           (buf[s..2s) keep the partial sums of the level that last wrote them)
.kernel reduce_shared
.grid 1
.block 16
.array in 16 = 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160
.array buf 16
.array out 1
    shl r0, %tid.x, 2        ; 4t
    ld r1, [r0+in]
    st [r0+buf], r1          ; buf[t] = in[t]
    bar                      ; every copy is done before level 8 reads buf[t + 8]
    mov r2, 32               ; 4s, s = 8
level:
    setp.lt.u p0, r0, r2     ; does thread t work at this level (t < s)?
    @!p0 bra wait
    ld r3, [r0+buf]
    add r4, r0, r2           ; 4(t + s)
    ld r5, [r4+buf]
    add r3, r3, r5
    st [r0+buf], r3          ; buf[t] += buf[t + s]
wait:
    bar                      ; the lanes that skipped rejoin here; all warps meet
    shr.u r2, r2, 1          ; s /= 2
    setp.ge.u p1, r2, 4      ; s >= 1: another level
    @p1 bra level
    setp.eq p2, r0, 0        ; thread 0 publishes the total
    @!p2 exit
    ld r6, [buf]
    st [out], r6
    exit
