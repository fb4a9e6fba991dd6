.kernel k
.target trn1
.spec "k.yaml"
.tensor x input float32 [128, 64]
.tile t sbuf float32 [128, 64] bufs 2 p[0:+128] @0 slot 256
loop reg=r0, var=i, start=0, stop=2, step=1
dve.memset dst=sbuf:t.(r0 % 2)[0:+128] @0 float32 [[1,64]], value=0.0
