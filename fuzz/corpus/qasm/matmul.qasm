; C = A * B for 3x3 int matrices (row major) by one 2-D CUDA block of 3x3 threads:
; thread (x, y) computes C[y][x] = sum over k of A[y][k] * B[k][x]. Nine threads fill
; three warps (the last one with one lane); the fourth warp stays idle. Addresses are
; bytes, so the kernel keeps its offsets in bytes: element [r][c] of a matrix is at its
; name + 4(r * n + c), and k steps by 4.
;
;   A = [ 1 2 3 ]   B = [ -1 0  2 ]   C = [  5 14 1 ]
;       [ 4 5 6 ]       [  3 1 -2 ]       [ 11 29 4 ]
;       [ 7 8 9 ]       [  0 4  1 ]       [ 17 44 7 ]
;
; Expected: C = 5, 14, 1, 11, 29, 4, 17, 44, 7
.kernel matmul
.grid 1
.block 3 3
.array A 9 = 1, 2, 3, 4, 5, 6, 7, 8, 9
.array B 9 = -1, 0, 2, 3, 1, -2, 0, 4, 1
.array C 9
    shl r0, %ntid.x, 2           ; 4n: one row in bytes
    shl r1, %tid.x, 2            ; 4j: column j (thread x)
    mul.lo r2, %tid.y, r0        ; 4in: start of row i (thread y)
    mov r3, 0                    ; acc = 0
    mov r4, 0                    ; 4k = 0
dot:
    add r5, r2, r4               ; 4(i * n + k)
    ld r6, [r5+A]                ; A[i][k]
    mad.lo r7, r4, %ntid.x, r1   ; 4(k * n + j)
    ld r8, [r7+B]                ; B[k][j]
    mad.lo r3, r6, r8, r3        ; acc += A[i][k] * B[k][j]
    add r4, r4, 4                ; k += 1
    setp.lt.s p0, r4, r0         ; k < n
    @p0 bra dot
    add r9, r2, r1               ; 4(i * n + j)
    st [r9+C], r3                ; C[i][j] = acc
    exit
