.kernel k
.target trn1
.tile t sbuf float32 [128, 8] bufs 1 p[0:+128] @0 slot 32
dve.memset dst=sbuf:t[0:+128] @6 float32 [[1,4]], value=0.0
