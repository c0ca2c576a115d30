; Runs inside the compiled model end to end: qgpu asm examples/grid2d.qasm --run --engine model
; %ctaid on a 2D grid: the model divides the linear block index N = ctaid.y * 13 + ctaid.x
; by the grid width at every token (docs/design.md §3). 13 x 19 = 247 one-thread blocks,
; four to a wave, so N's high nibble takes every value; each block stores 256 y + x at
; out[N mod 124] (the later wave's block wins), and its value records carry it for all 247.
.kernel grid2d
.grid 13 19
.block 1
.array out 124
    mov r0, %ctaid.y
    mad.lo r0, r0, %nctaid.x, %ctaid.x   ; N
    shl r1, %ctaid.y, 8
    or r1, r1, %ctaid.x                  ; 256 y + x
    setp.ge.s p0, r0, 124
    @p0 sub r0, r0, 124                  ; N mod 124
    shl r0, r0, 2
    st [r0+out], r1
    exit
