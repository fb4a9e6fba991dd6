.kernel k
.target trn1
.tensor x input float32 [10, 8]
.tensor y output float32 [16, 8]
.tile ix sbuf float32 [16, 1] bufs 1 p[0:+16] @0 slot 64
.tile t sbuf float32 [16, 8] bufs 1 p[0:+16] @64 slot 64
dma.load dst=sbuf:t[0:+16] @0 float32 [[1,8]], src=hbm:x[+16 s0] @0 float32 [[1,8]], index=sbuf:ix[0:+16] @0 float32 [[1,1]], index_step=8, index_bound=10
