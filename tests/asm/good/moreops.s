; moreops.s - the forms of SPEC.md §2.1 "More ops": activation reduce with
; maximum/minimum, tensor_scalar with reduce_dst/reduce_op (accumulate).
.kernel moreops
.target trn1
.spec "moreops.yaml"
.tilegen "0.1.0"
.tensor x input float32 [128, 200]
.tensor y output bfloat16 [128, 200]
.tensor s output float32 [128, 3]
.tile xt sbuf float32 [128, 200] bufs 1 p[0:+128] @0 slot 832
.tile yt sbuf bfloat16 [128, 200] bufs 1 p[0:+128] @832 slot 448
.tile st sbuf float32 [128, 3] bufs 1 p[0:+128] @1280 slot 64

dma.load dst=sbuf:xt[0:+128] @0 float32 [[1,200]], src=hbm:x[+128 s200] @0 float32 [[1,200]], queue=0  ; moreops.yaml:14
dma.signal sem=s0, queue=0  ; moreops.yaml:14
act.wait sem=s0  ; moreops.yaml:15
act.activation dst=sbuf:yt[0:+128] @0 bfloat16 [[1,200]], src=sbuf:xt[0:+128] @0 float32 [[1,200]], reduce_dst=sbuf:st[0:+128] @0 float32 [[1,1]], func=exp, scale=1.0, reduce_op=maximum  ; moreops.yaml:15
act.signal sem=s1  ; moreops.yaml:15
dve.wait sem=s1  ; moreops.yaml:16
dve.tensor_scalar dst=sbuf:yt[0:+128] @0 bfloat16 [[1,200]], src=sbuf:xt[0:+128] @0 float32 [[1,200]], reduce_dst=sbuf:st[0:+128] @4 float32 [[1,1]], op0=multiply, operand0=2.0, op1=add, operand1=1.0, reduce_op=minimum  ; moreops.yaml:16
dve.signal sem=s2  ; moreops.yaml:16
dve.signal sem=s3  ; moreops.yaml:16
act.wait sem=s2  ; moreops.yaml:17
act.activation dst=sbuf:xt[0:+128] @0 float32 [[1,200]], src=sbuf:xt[0:+128] @0 float32 [[1,200]], reduce_dst=sbuf:st[0:+128] @8 float32 [[1,1]], func=tanh, scale=1.0, reduce_op=minimum  ; moreops.yaml:17
act.signal sem=s4  ; moreops.yaml:17
dma.wait sem=s3, queue=1  ; moreops.yaml:18
dma.store dst=hbm:y[+128 s200] @0 bfloat16 [[1,200]], src=sbuf:yt[0:+128] @0 bfloat16 [[1,200]], queue=1  ; moreops.yaml:18
dma.wait sem=s4, queue=2  ; moreops.yaml:19
dma.store dst=hbm:s[+128 s3] @0 float32 [[1,3]], src=sbuf:st[0:+128] @0 float32 [[1,3]], queue=2  ; moreops.yaml:19
