.kernel k
.target trn1
.tile t sbuf float32 [128, 8] bufs 1 p[0:+128] @0 slot 32
loop reg=r0, var=i, start=0, stop=4, step=1
    dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,8]], value=1.0, value=(r0 * 0.5)
endloop reg=r0
