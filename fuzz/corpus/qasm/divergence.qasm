; If/else on lane parity inside a warp, then reconvergence: out[i] = (i odd ? i * 3 : i / 2)
; + 100. Odd and even lanes take different paths; the machine runs the path with the
; smaller PC first (min-PC scheduling), so the even lanes run the 'then' part, the odd
; lanes the 'else' part, and all four lanes of each warp meet again at 'join' without a
; reconvergence stack. The trace shows 'sched ... {0,2}', then '{1,3}', then the full
; mask '{0,1,2,3}' at the join.
;
; Expected: out = 100, 103, 101, 109, 102, 115, 103, 121
.kernel divergence
.grid 1
.block 8
.array out 8
    mov r0, %tid.x
    and r1, r0, 1
    setp.ne p0, r1, 0        ; p0 = i is odd
    @p0 bra odd
    shr.u r2, r0, 1          ; even lanes: i / 2
    bra join
odd:
    mul.lo r2, r0, 3         ; odd lanes: i * 3
join:
    add r2, r2, 100          ; every lane again
    shl r3, r0, 2            ; 4i: the byte offset of out[i]
    st [r3+out], r2
    exit
