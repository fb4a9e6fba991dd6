.kernel k
.target trn1
.tile t sbuf bfloat16 [128, 8] bufs 2 p[0:+128] @0 slot 18
dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,4]], value=0.0
