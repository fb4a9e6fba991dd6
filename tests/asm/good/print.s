; print.s - dve.print (format 1.6): SBUF and PSUM regions, a bfloat16 one, a 3-D region with its dims
; unmerged and a column, inside loops (tests/numerics/specs/print_loops.yaml).
.kernel print_loops
.target trn1
.spec "tests/numerics/specs/print_loops.yaml"
.tilegen "0.1.0"
.tensor x input float32 [2, 2, 32, 16]
.tensor w input bfloat16 [2, 32, 24]
.tensor y output float32 [2, 16, 24]
.tile acc psum float32 [16, 24] bufs 1 p[0:+16] @0 slot 2048
.tile xt sbuf bfloat16 [32, 16] bufs 1 p[0:+32] @0 slot 64
.tile wt sbuf bfloat16 [32, 24] bufs 1 p[0:+32] @64 slot 64
.tile cube sbuf float32 [16, 4, 6] bufs 1 p[0:+16] @128 slot 128
.tile yt sbuf float32 [16, 24] bufs 1 p[0:+16] @0 slot 128

dma.signal sem=s10, queue=2  ; tests/numerics/specs/print_loops.yaml:37
dma.signal sem=s11, queue=2  ; tests/numerics/specs/print_loops.yaml:37
loop reg=r0, var=i, start=0, stop=2, step=1  ; tests/numerics/specs/print_loops.yaml:23
    dve.memset dst=psum:acc[0:+16] @0 float32 [[1,24]], value=0.0  ; tests/numerics/specs/print_loops.yaml:25
    dve.signal sem=s1  ; tests/numerics/specs/print_loops.yaml:25
    pe.wait sem=s1  ; tests/numerics/specs/print_loops.yaml:31
    pe.signal sem=s5  ; tests/numerics/specs/print_loops.yaml:31
    dve.signal sem=s6  ; tests/numerics/specs/print_loops.yaml:30
    pe.signal sem=s7  ; tests/numerics/specs/print_loops.yaml:31
    dve.signal sem=s8  ; tests/numerics/specs/print_loops.yaml:32
    dma.wait sem=s10, queue=0  ; tests/numerics/specs/print_loops.yaml:28
    dma.wait sem=s11, queue=1  ; tests/numerics/specs/print_loops.yaml:29
    loop reg=r1, var=k, start=0, stop=2, step=1, carried=true  ; tests/numerics/specs/print_loops.yaml:26
        dma.wait sem=s5, queue=0  ; tests/numerics/specs/print_loops.yaml:28
        dma.wait sem=s6, queue=0  ; tests/numerics/specs/print_loops.yaml:28
        dma.load dst=sbuf:xt[0:+32] @0 bfloat16 [[1,16]], src=hbm:x[+32 s16] @r0 * 4096 + r1 * 2048 float32 [[1,16]], queue=0  ; tests/numerics/specs/print_loops.yaml:28
        dma.signal sem=s0, queue=0  ; tests/numerics/specs/print_loops.yaml:28
        dma.signal sem=s2, queue=0  ; tests/numerics/specs/print_loops.yaml:28
        dma.wait sem=s7, queue=1  ; tests/numerics/specs/print_loops.yaml:29
        dma.load dst=sbuf:wt[0:+32] @0 bfloat16 [[1,24]], src=hbm:w[+32 s24] @r1 * 1536 bfloat16 [[1,24]], queue=1  ; tests/numerics/specs/print_loops.yaml:29
        dma.signal sem=s3, queue=1  ; tests/numerics/specs/print_loops.yaml:29
        dve.wait sem=s0  ; tests/numerics/specs/print_loops.yaml:30
        dve.print src=sbuf:xt[0:+4] @0 bfloat16 [[1,16]], label=xt_head  ; tests/numerics/specs/print_loops.yaml:30
        dve.signal sem=s6  ; tests/numerics/specs/print_loops.yaml:30
        pe.wait sem=s2  ; tests/numerics/specs/print_loops.yaml:31
        pe.wait sem=s3  ; tests/numerics/specs/print_loops.yaml:31
        pe.wait sem=s8  ; tests/numerics/specs/print_loops.yaml:31
        pe.matmul dst=psum:acc[0:+16] @0 float32 [[1,24]], stationary=sbuf:xt[0:+32] @0 bfloat16 [[1,16]], moving=sbuf:wt[0:+32] @0 bfloat16 [[1,24]], accumulate=true  ; tests/numerics/specs/print_loops.yaml:31
        pe.signal sem=s4  ; tests/numerics/specs/print_loops.yaml:31
        pe.signal sem=s5  ; tests/numerics/specs/print_loops.yaml:31
        pe.signal sem=s7  ; tests/numerics/specs/print_loops.yaml:31
        dve.wait sem=s4  ; tests/numerics/specs/print_loops.yaml:32
        dve.print src=psum:acc[0:+16] @0 float32 [[1,24]], label=acc  ; tests/numerics/specs/print_loops.yaml:32
        dve.signal sem=s8  ; tests/numerics/specs/print_loops.yaml:32
    endloop reg=r1  ; tests/numerics/specs/print_loops.yaml:26
    dma.wait sem=s5, queue=0  ; tests/numerics/specs/print_loops.yaml:28
    dma.wait sem=s6, queue=0  ; tests/numerics/specs/print_loops.yaml:28
    dma.wait sem=s7, queue=1  ; tests/numerics/specs/print_loops.yaml:29
    pe.wait sem=s8  ; tests/numerics/specs/print_loops.yaml:31
    dve.tensor_scalar dst=sbuf:yt[0:+16] @0 float32 [[1,24]], src=psum:acc[0:+16] @0 float32 [[1,24]], op0=multiply, operand0=2.0  ; tests/numerics/specs/print_loops.yaml:33
    dve.signal sem=s9  ; tests/numerics/specs/print_loops.yaml:33
    dve.tensor_copy dst=sbuf:cube[0:+16] @0 float32 [[1,24]], src=sbuf:yt[0:+16] @0 float32 [[1,24]]  ; tests/numerics/specs/print_loops.yaml:34
    dve.print src=sbuf:cube[2:+8] @24 float32 [[6,2],[1,6]], label=cube_mid  ; tests/numerics/specs/print_loops.yaml:35
    dve.print src=sbuf:cube[0:+16] @92 float32 [[1,1]], label=cube_col  ; tests/numerics/specs/print_loops.yaml:36
    dma.wait sem=s9, queue=2  ; tests/numerics/specs/print_loops.yaml:37
    dma.store dst=hbm:y[+16 s24] @r0 * 1536 float32 [[1,24]], src=sbuf:yt[0:+16] @0 float32 [[1,24]], queue=2  ; tests/numerics/specs/print_loops.yaml:37
    dma.signal sem=s10, queue=2  ; tests/numerics/specs/print_loops.yaml:37
    dma.signal sem=s11, queue=2  ; tests/numerics/specs/print_loops.yaml:37
endloop reg=r0  ; tests/numerics/specs/print_loops.yaml:23
dma.wait sem=s10, queue=0  ; tests/numerics/specs/print_loops.yaml:28
dma.wait sem=s11, queue=1  ; tests/numerics/specs/print_loops.yaml:29
