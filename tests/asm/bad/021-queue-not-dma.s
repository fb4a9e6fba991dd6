.kernel k
.target trn1
.spec "k.yaml"
.tensor x input float32 [128, 64]
.tile t sbuf float32 [128, 64] bufs 2 p[0:+128] @0 slot 256
dma.signal sem=s0, queue=2
dve.wait sem=s0, queue=2
