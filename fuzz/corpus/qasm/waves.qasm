; A grid of 8 CUDA blocks of 8 threads. A CUDA block of 8 threads needs 2 warps, so 2 of
; them are resident at once (warps 0-1 and warps 2-3) and the grid runs in 4 waves; a
; 'wave N' record starts each wave after the first, reusing the warps. Every thread
; writes out[ctaid * 8 + tid] = ctaid * 100 + tid; thread 0 of each CUDA block writes the
; resident warp that ran it to slot[ctaid]. Addresses are bytes: element i of an array is
; at its name + 4i.
;
; Expected: out  = 0..7, 100..107, 200..207, ..., 700..707
;           slot = 0, 2, 0, 2, 0, 2, 0, 2
.kernel waves
.grid 8
.block 8
.array out 64
.array slot 8
    shl r0, %ctaid.x, 2          ; 4 * ctaid: slot[ctaid]
    shl r1, %tid.x, 2            ; 4 * tid
    mad.lo r2, r0, %ntid.x, r1   ; 4i: out[i], i = ctaid * 8 + tid
    mul.lo r3, %ctaid.x, 100
    add r3, r3, %tid.x
    st [r2+out], r3
    setp.ne p0, r1, 0
    @p0 exit                     ; only thread 0 goes on
    mov r4, %warpid
    st [r0+slot], r4
    exit
