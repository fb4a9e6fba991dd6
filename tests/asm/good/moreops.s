; moreops.s - the forms of SPEC.md §2.1 "More ops": activation reduce with maximum,
; tensor_scalar reduce_dst/reduce_op, select, scalar_tensor_tensor, max8, nc_find_index8, nc_match_replace8.
.kernel moreops
.target trn1
.spec "moreops.yaml"
.tilegen "0.1.0"
.tensor x input float32 [128, 100]
.tensor b input bfloat16 [128, 100]
.tensor c input float32 [128, 1]
.tensor y1 output float32 [128, 100]
.tensor y2 output bfloat16 [128, 100]
.tensor y3 output bfloat16 [128, 100]
.tensor s output float32 [128, 3]
.tensor m output float32 [128, 8]
.tensor ix output uint32 [128, 8]
.tensor r output float32 [128, 100]
.tile st sbuf float32 [128, 3] bufs 1 p[0:+128] @2368 slot 64
.tile xt sbuf float32 [128, 100] bufs 1 p[0:+128] @0 slot 448
.tile bt sbuf bfloat16 [128, 100] bufs 1 p[0:+128] @1792 slot 256
.tile ct sbuf float32 [128, 1] bufs 1 p[0:+128] @2304 slot 64
.tile at sbuf float32 [128, 100] bufs 1 p[0:+128] @448 slot 448
.tile pt sbuf float32 [128, 100] bufs 1 p[0:+128] @896 slot 448
.tile qt sbuf float32 [128, 100] bufs 1 p[0:+128] @448 slot 448
.tile y1t sbuf float32 [128, 100] bufs 1 p[0:+128] @1344 slot 448
.tile y2t sbuf bfloat16 [128, 100] bufs 1 p[0:+128] @896 slot 256
.tile y3t sbuf bfloat16 [128, 100] bufs 1 p[0:+128] @2048 slot 256
.tile mt sbuf float32 [128, 8] bufs 1 p[0:+128] @1152 slot 64
.tile ixt sbuf uint32 [128, 8] bufs 1 p[0:+128] @1216 slot 64
.tile rt sbuf float32 [128, 100] bufs 1 p[0:+128] @448 slot 448

dma.load dst=sbuf:xt[0:+128] @0 float32 [[1,100]], src=hbm:x[+128 s100] @0 float32 [[1,100]], queue=0  ; moreops.yaml:19
dma.signal sem=s0, queue=0  ; moreops.yaml:19
dma.load dst=sbuf:bt[0:+128] @0 bfloat16 [[1,100]], src=hbm:b[+128 s100] @0 bfloat16 [[1,100]], queue=1  ; moreops.yaml:20
dma.signal sem=s3, queue=1  ; moreops.yaml:20
dma.load dst=sbuf:ct[0:+128] @0 float32 [[1,1]], src=hbm:c[+128 s1] @0 float32 [[1,1]], queue=2  ; moreops.yaml:21
dma.signal sem=s2, queue=2  ; moreops.yaml:21
act.wait sem=s0  ; moreops.yaml:22
act.activation dst=sbuf:at[0:+128] @0 float32 [[1,100]], src=sbuf:xt[0:+128] @0 float32 [[1,100]], reduce_dst=sbuf:st[0:+128] @0 float32 [[1,1]], func=exp, scale=1.0, reduce_op=maximum  ; moreops.yaml:22
act.signal sem=s1  ; moreops.yaml:22
dve.wait sem=s1  ; moreops.yaml:23
dve.tensor_scalar dst=sbuf:pt[0:+128] @0 float32 [[1,100]], src=sbuf:at[0:+128] @0 float32 [[1,100]], reduce_dst=sbuf:st[0:+128] @4 float32 [[1,1]], op0=greater, operand0=1.0, reduce_op=minimum  ; moreops.yaml:23
dve.wait sem=s2  ; moreops.yaml:24
dve.tensor_scalar dst=sbuf:qt[0:+128] @0 float32 [[1,100]], src=sbuf:xt[0:+128] @0 float32 [[1,100]], operand0=sbuf:ct[0:+128] @0 float32 [[1,1]], reduce_dst=sbuf:st[0:+128] @8 float32 [[1,1]], op0=multiply, op1=add, operand1=-0.5, reduce_op=add  ; moreops.yaml:24
dve.signal sem=s10  ; moreops.yaml:24
dve.select dst=sbuf:y1t[0:+128] @0 float32 [[1,100]], pred=sbuf:pt[0:+128] @0 float32 [[1,100]], on_true=sbuf:qt[0:+128] @0 float32 [[1,100]], on_false=sbuf:ct[0:+128] @0 float32 [[1,1]]  ; moreops.yaml:25
dve.signal sem=s7  ; moreops.yaml:25
dve.wait sem=s3  ; moreops.yaml:26
dve.select dst=sbuf:y2t[0:+128] @0 bfloat16 [[1,100]], pred=sbuf:xt[0:+128] @0 float32 [[1,100]], on_false=sbuf:bt[0:+128] @0 bfloat16 [[1,100]], on_true=1.5  ; moreops.yaml:26
dve.signal sem=s8  ; moreops.yaml:26
dve.scalar_tensor_tensor dst=sbuf:y3t[0:+128] @0 bfloat16 [[1,100]], src=sbuf:bt[0:+128] @0 bfloat16 [[1,100]], b=sbuf:xt[0:+128] @0 float32 [[1,100]], operand0=sbuf:ct[0:+128] @0 float32 [[1,1]], op0=subtract, op1=multiply, reverse0=true  ; moreops.yaml:27
dve.scalar_tensor_tensor dst=sbuf:y3t[0:+128] @0 bfloat16 [[1,100]], src=sbuf:y3t[0:+128] @0 bfloat16 [[1,100]], b=sbuf:xt[0:+128] @0 float32 [[1,100]], op0=divide, operand0=3.0, op1=maximum  ; moreops.yaml:28
dve.signal sem=s9  ; moreops.yaml:28
dve.max8 dst=sbuf:mt[0:+128] @0 float32 [[1,8]], src=sbuf:xt[0:+128] @0 float32 [[1,100]]  ; moreops.yaml:29
dve.signal sem=s4  ; moreops.yaml:29
dve.nc_find_index8 dst=sbuf:ixt[0:+128] @0 uint32 [[1,8]], src=sbuf:xt[0:+128] @0 float32 [[1,100]], values=sbuf:mt[0:+128] @0 float32 [[1,8]]  ; moreops.yaml:30
dve.signal sem=s5  ; moreops.yaml:30
dve.nc_match_replace8 dst=sbuf:rt[0:+128] @0 float32 [[1,100]], src=sbuf:xt[0:+128] @0 float32 [[1,100]], values=sbuf:mt[0:+128] @0 float32 [[1,8]], imm=-inf  ; moreops.yaml:31
dve.signal sem=s6  ; moreops.yaml:31
dma.wait sem=s4, queue=3  ; moreops.yaml:32
dma.store dst=hbm:m[+128 s8] @0 float32 [[1,8]], src=sbuf:mt[0:+128] @0 float32 [[1,8]], queue=3  ; moreops.yaml:32
dma.wait sem=s5, queue=4  ; moreops.yaml:33
dma.store dst=hbm:ix[+128 s8] @0 uint32 [[1,8]], src=sbuf:ixt[0:+128] @0 uint32 [[1,8]], queue=4  ; moreops.yaml:33
dma.wait sem=s6, queue=5  ; moreops.yaml:34
dma.store dst=hbm:r[+128 s100] @0 float32 [[1,100]], src=sbuf:rt[0:+128] @0 float32 [[1,100]], queue=5  ; moreops.yaml:34
dma.wait sem=s7, queue=6  ; moreops.yaml:35
dma.store dst=hbm:y1[+128 s100] @0 float32 [[1,100]], src=sbuf:y1t[0:+128] @0 float32 [[1,100]], queue=6  ; moreops.yaml:35
dma.wait sem=s8, queue=7  ; moreops.yaml:36
dma.store dst=hbm:y2[+128 s100] @0 bfloat16 [[1,100]], src=sbuf:y2t[0:+128] @0 bfloat16 [[1,100]], queue=7  ; moreops.yaml:36
dma.wait sem=s9, queue=8  ; moreops.yaml:37
dma.store dst=hbm:y3[+128 s100] @0 bfloat16 [[1,100]], src=sbuf:y3t[0:+128] @0 bfloat16 [[1,100]], queue=8  ; moreops.yaml:37
dma.wait sem=s10, queue=9  ; moreops.yaml:38
dma.store dst=hbm:s[+128 s3] @0 float32 [[1,3]], src=sbuf:st[0:+128] @0 float32 [[1,3]], queue=9  ; moreops.yaml:38
