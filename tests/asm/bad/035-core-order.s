.kernel k
.target trn2
.tensor x input float32 [16, 8]
.tile t sbuf float32 [16, 8] bufs 1 p[0:+16] @0 slot 64
core id=1
dma.load dst=sbuf:t[0:+16] @0 float32 [[1,8]], src=hbm:x[+16 s8] @0 float32 [[1,8]]
