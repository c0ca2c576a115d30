; Atomics from 16 threads in 4 warps. An atomic's lanes are serialised: lane 0, 1, 2, 3
; of the warp, each lane's old value is its own record, and memory changes when that
; record is consumed. Warps take turns round-robin, so the order over the block is
; thread 0, 1, ..., 15. Addresses are bytes: element i of an array is at its name + 4i.
;   hist[data[i] % 4] += 1         atom.add, a histogram
;   count += 1                     atom.add, a counter
;   maxv = max(maxv, data[i])      atom.max.s, signed
;   next[i] = exch(head, i)        atom.exch: a linked list in arrival order
;   winner = cas(winner, -1, i)    atom.cas, only threads whose data is 9: the first wins
;
; Expected: hist = 2, 8, 2, 4     count = 16    maxv = 9    head = 15
;           next = -1, 0, 1, ..., 14 (thread i arrived right after thread i - 1)
;           winner = 5 (data[5] is the first 9)
.kernel atomics
.grid 1
.block 16
.array data 16 = 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3
.array hist 4
.array count 1
.array maxv 1 = -1000
.array head 1 = -1
.array next 16
.array winner 1 = -1
    shl r0, %tid.x, 2            ; 4i: the byte offset of element i
    ld r1, [r0+data]
    and r2, r1, 3
    shl r2, r2, 2                ; 4 * (data % 4)
    mov r3, 1
    atom.add r4, [r2+hist], r3   ; hist[data % 4] += 1
    atom.add r5, [count], r3     ; r5 = this thread's ticket
    atom.max.s r6, [maxv], r1
    mov r10, %tid.x
    atom.exch r7, [head], r10    ; r7 = the thread that arrived before this one
    st [r0+next], r7
    mov r8, -1
    setp.eq p0, r1, 9
    @p0 atom.cas r9, [winner], r8, r10
    exit
