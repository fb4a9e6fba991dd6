.kernel k
.target trn1
.tile big sbuf float32 [128, 50000] bufs 1 p[0:+128] @0 slot 200000
