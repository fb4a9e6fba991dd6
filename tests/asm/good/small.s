; small.s - a hand-written canonical listing: every instruction kind the bundled specs use, nested
; loops, a ragged min() count, semaphores, a number evaluated per iteration (format 1.3).
.kernel small
.target trn2
.spec "small.yaml"
.tilegen "hand"
.tensor x input float32 [300, 64]
.tensor y output bfloat16 [300, 64]
.tile xt sbuf float32 [128, 64] bufs 2 p[0:+128] @0 slot 256
.tile acc psum float32 [128, 64] bufs 1 p[0:+128] @2048 slot 2048
.tile one sbuf float32 [128, 1] bufs 1 p[0:+128] @512 slot 64
.tile yt sbuf bfloat16 [128, 64] bufs 1 p[0:+128] @576 slot 128

pool.iota dst=sbuf:one[0:+128] @0 float32 [[1,1]], expr=p * 2 - f  ; small.yaml:3
pool.signal sem=s0  ; small.yaml:3
loop reg=r0, var=i, start=0, stop=3, step=1  ; small.yaml:4
    dma.load dst=sbuf:xt.(r0 % 2)[0:+min(128, 300 - r0 * 128)] @0 float32 [[1,64]], src=hbm:x[+min(128, 300 - r0 * 128) s64] @r0 * 32768 float32 [[1,64]]  ; small.yaml:5
    dma.signal sem=s1  ; small.yaml:5
    act.wait sem=s1  ; small.yaml:6
    act.wait sem=s0
    act.activation dst=sbuf:xt.(r0 % 2)[0:+min(128, 300 - r0 * 128)] @0 float32 [[1,64]], src=sbuf:xt.(r0 % 2)[0:+min(128, 300 - r0 * 128)] @0 float32 [[1,64]], bias=sbuf:one[0:+min(128, 300 - r0 * 128)] @0 float32 [[1,1]], func=gelu_apprx_tanh, scale=0.5  ; small.yaml:6
    act.signal sem=s0
    loop reg=r1, var=j, start=1, stop=8, step=3, carried=true  ; small.yaml:7
        dve.tensor_scalar dst=sbuf:xt.(r0 % 2)[0:+128] @r1 * 4 float32 [[2,4],[1,2]], src=sbuf:xt.(r0 % 2)[0:+128] @0 float32 [[1,8]], op0=add, operand0=-1e-06, op1=maximum, operand1=-inf, reverse1=true  ; small.yaml:8
        dve.memset dst=sbuf:xt.(r0 % 2)[0:+128] @r1 * 4 float32 [[1,2]], value=(-r0 / 3 + min(r1, 2.5) % 0.7 - -1.5e-07 * inf)  ; small.yaml:8
    endloop reg=r1  ; small.yaml:7
    dve.tensor_copy dst=sbuf:yt[0:+128] @0 bfloat16 [[1,64]], src=sbuf:xt.(r0 % 2)[0:+128] @0 float32 [[1,64]]  ; small.yaml:9
    dve.signal sem=s2  ; small.yaml:9
    dma.wait sem=s2, queue=5  ; small.yaml:10
    dma.store dst=hbm:y[+min(128, 300 - r0 * 128) s64] @r0 * 16384 bfloat16 [[1,64]], src=sbuf:yt[0:+min(128, 300 - r0 * 128)] @0 bfloat16 [[1,64]], queue=5  ; small.yaml:10
endloop reg=r0  ; small.yaml:4
pool.wait sem=s0
