.kernel k
.target trn1
.tile t sbuf float32 [128, 8] bufs 1 p[0:+128] @2 slot 32
