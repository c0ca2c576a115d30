; Signed and unsigned division and remainder, one pair (a[i], b[i]) per thread, with
; negative operands, INT_MIN / -1 and division by zero. Rules (docs/isa.md, as PTX
; on NVIDIA hardware): div.s truncates toward zero and rem.s takes the sign of a;
; INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0; a / 0 = (a < 0 ? 1 : -1) signed and
; 0xffffffff unsigned; a % 0 = a. Unsigned results are printed as signed words.
; Addresses are bytes: element i of an array is at its name + 4i.
;
;   a     =  7  -7   7  -7   5  -5  INT_MIN   0
;   b     =  2   2  -2  -2   0   0       -1   0
; Expected:
;   div_s =  3  -3  -3   3  -1   1  INT_MIN  -1
;   rem_s =  1  -1   1  -1   5  -5        0   0
;   div_u =  3  2147483644  0   0  -1  -1        0  -1
;   rem_u =  1   1   7  -7   5  -5  INT_MIN   0
; (-7 / -2 unsigned is 0xfffffff9 / 0xfffffffe = 0, remainder 0xfffffff9 = -7)
.kernel div_mod
.grid 1
.block 8
.array a 8 = 7, -7, 7, -7, 5, -5, -2147483648, 0
.array b 8 = 2, 2, -2, -2, 0, 0, -1, 0
.array div_s 8
.array rem_s 8
.array div_u 8
.array rem_u 8
    shl r0, %tid.x, 2        ; 4i: the byte offset of element i
    ld r1, [r0+a]
    ld r2, [r0+b]
    div.s r3, r1, r2
    st [r0+div_s], r3
    rem.s r4, r1, r2
    st [r0+rem_s], r4
    div.u r5, r1, r2
    st [r0+div_u], r5
    rem.u r6, r1, r2
    st [r0+rem_u], r6
    exit
