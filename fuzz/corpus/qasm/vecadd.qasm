; c[i] = a[i] + b[i] for 8 elements: 2 CUDA blocks of 4 threads. Addresses are bytes:
; element i of an array is at its name + 4i.
.kernel vecadd
.grid 2
.block 4
.array a 8 = 1, 2, 3, 4, 5, 6, 7, 8
.array b 8 = 10, 20, 30, 40, 50, 60, 70, -1000
.array c 8
    mov r0, %ctaid.x
    mad.lo r0, r0, %ntid.x, %tid.x   ; i = blockIdx.x * blockDim.x + threadIdx.x
    shl r0, r0, 2                    ; 4i: the byte offset of element i
    ld r1, [r0+a]
    ld r2, [r0+b]
    add r3, r1, r2
    st [r0+c], r3
    exit
