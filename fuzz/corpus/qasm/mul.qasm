; Runs inside the compiled model end to end: qgpu asm examples/mul.qasm --run --engine model
; The multiplier (mul.lo, mad.lo: the low word of a * b (+ c), signed or not alike):
; per-lane products that wrap around 2^32, and Horner's rule for the polynomial
; p(x) = 3 x^3 - 5 x^2 + 7 x - 11 by three mad.lo. out[i] = a[i] * b[i], poly[i] = p(a[i]).
.kernel mul
.grid 1
.block 8
.array a 8 = 5, -3, 100000, 7, 0, -2147483648, 2147483647, 300
.array b 8 = 12345, 77, -99999, 65536, 4, -1, 2147483647, -300
.array out 8
.array poly 8
    mov r0, %tid.x
    mul.lo r0, r0, 4               ; the byte offset of element tid
    ld r1, [r0+a]
    ld r2, [r0+b]
    mul.lo r3, r1, r2
    st [r0+out], r3
    mov r4, 3
    mov r5, -5
    mad.lo r4, r4, r1, r5          ; 3 x - 5
    mov r5, 7
    mad.lo r4, r4, r1, r5          ; (3 x - 5) x + 7
    mov r5, -11
    mad.lo r4, r4, r1, r5          ; ((3 x - 5) x + 7) x - 11
    st [r0+poly], r4
    exit
