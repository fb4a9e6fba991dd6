.kernel k
.target trn1
.spec "k.yaml"
.tensor x input float32 [128, 64]
.tile t sbuf float32 [128, 64] bufs 2 p[0:+128] @0 slot 256
dve.select dst=sbuf:t[0:+128] @0 float32 [[1,64]], pred=sbuf:t[0:+128] @0 float32 [[1,64]], on_true=1.5
