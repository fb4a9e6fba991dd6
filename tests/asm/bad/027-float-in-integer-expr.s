.kernel k
.target trn1
.tile t sbuf float32 [128, 8] bufs 1 p[0:+128] @0 slot 32
pool.iota dst=sbuf:t[0:+128] @0 float32 [[1,8]], expr=p * 1.5
