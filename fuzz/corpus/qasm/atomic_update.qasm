; The atomics the model generates (atom.cas aside): add, exch, min and max, signed and
; unsigned, on words shared by 16 threads in 4 warps, one- and 4-byte values. Lanes go
; one after another (lane 0..3 of a warp, warps round-robin: thread 0, 1, ..., 15), and
; each update lands when its old word is consumed, so a thread sees every earlier one.
;   hist[data[i] % 4] += 1     count += 1 (a ticket: 1000 + i)     big += data[i]
;   mins: signed and unsigned min     maxs: signed and unsigned max
;   next[i] = exch(head, i)    data[i] = the two mins thread i saw
;
; Expected: hist = 4, 6, 1, 5    count = 1016    big = 70000 + 900000 - 2000000 + 67 = -1029933
;           tick = 1000, 1001, ..., 1015    head = 15    next = -1, 0, 1, ..., 14
;           mins = -2000000, 1 (unsigned: 1 is the smallest)    maxs = 900000, -1 (0xffffffff)
;           data = 71000, 6, 2, 2, 0, 0, 0, -1999999, ... (from thread 7 on: -2000000 + 1)
.kernel atomic_update
.grid 1
.block 16
.array data 16 = 3, -1, 4, 1, 5, 9, -2000000, 6, 5, 3, 5, 8, 9, 7, 900000, 3
.array hist 4
.array count 1 = 1000
.array big 1 = 70000
.array tick 16
.array mins 2 = 1000, 70000
.array maxs 2 = -1000, 0
.array head 1 = -1
.array next 16
    shl r0, %tid.x, 2            ; 4i: the byte offset of element i
    ld r1, [r0+data]
    and r2, r1, 3
    shl r2, r2, 2
    mov r3, 1
    atom.add r4, [r2+hist], r3
    atom.add r5, [count], r3
    st [r0+tick], r5
    atom.add r6, [big], r1
    atom.min.s r4, [mins], r1
    atom.min.u r5, [mins+4], r1
    atom.max.s r6, [maxs], r1
    atom.max.u r7, [maxs+4], r1
    mov r2, %tid.x
    atom.exch r8, [head], r2
    st [r0+next], r8
    add r9, r4, r5
    st [r0+data], r9
    exit
