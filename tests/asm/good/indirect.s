; indirect.s - indirect DMA (format 1.5): index columns of int32, uint32, int8 and int16 on
; dma.load and dma.store with index_step and index_bound (tests/numerics/gather_bounds/gb.yaml).
.kernel gb
.target trn1
.spec "tests/numerics/gather_bounds/gb.yaml"
.tilegen "0.1.0"
.tensor x input float32 [10, 8]
.tensor lg input float32 [16, 5]
.tensor a input int32 [16, 1]
.tensor b input uint32 [16, 1]
.tensor c input int8 [16, 1]
.tensor d input int16 [16, 1]
.tensor e input int32 [16, 1]
.tensor y output float32 [3, 16, 8]
.tensor ye output float32 [16, 1]
.tensor z output float32 [10, 8]
.tile ta sbuf int32 [16, 1] bufs 1 p[0:+16] @0 slot 64
.tile ga sbuf float32 [16, 8] bufs 1 p[0:+16] @64 slot 64
.tile tb sbuf uint32 [16, 1] bufs 1 p[0:+16] @0 slot 64
.tile gb sbuf float32 [16, 8] bufs 1 p[0:+16] @128 slot 64
.tile tc sbuf int8 [16, 1] bufs 1 p[0:+16] @0 slot 64
.tile gc sbuf float32 [16, 8] bufs 1 p[0:+16] @128 slot 64
.tile td sbuf int16 [16, 1] bufs 1 p[0:+16] @0 slot 64
.tile ge sbuf float32 [16, 1] bufs 1 p[0:+16] @128 slot 64
.tile te sbuf int32 [16, 1] bufs 1 p[0:+16] @0 slot 64

dma.load dst=sbuf:ta[0:+16] @0 int32 [[1,1]], src=hbm:a[+16 s1] @0 int32 [[1,1]], queue=0  ; tests/numerics/gather_bounds/gb.yaml:28
dma.signal sem=s0, queue=0  ; tests/numerics/gather_bounds/gb.yaml:28
dma.wait sem=s0, queue=1  ; tests/numerics/gather_bounds/gb.yaml:29
dma.load dst=sbuf:ga[0:+16] @0 float32 [[1,8]], src=hbm:x[+16 s0] @0 float32 [[1,8]], index=sbuf:ta[0:+16] @0 int32 [[1,1]], index_step=8, index_bound=10, queue=1  ; tests/numerics/gather_bounds/gb.yaml:29
dma.signal sem=s1, queue=1  ; tests/numerics/gather_bounds/gb.yaml:29
dma.signal sem=s2, queue=1  ; tests/numerics/gather_bounds/gb.yaml:29
dma.wait sem=s1, queue=2  ; tests/numerics/gather_bounds/gb.yaml:30
dma.store dst=hbm:y[+16 s8] @0 float32 [[1,8]], src=sbuf:ga[0:+16] @0 float32 [[1,8]], queue=2  ; tests/numerics/gather_bounds/gb.yaml:30
dma.signal sem=s3, queue=2  ; tests/numerics/gather_bounds/gb.yaml:30
dma.wait sem=s2, queue=3  ; tests/numerics/gather_bounds/gb.yaml:31
dma.load dst=sbuf:tb[0:+16] @0 uint32 [[1,1]], src=hbm:b[+16 s1] @0 uint32 [[1,1]], queue=3  ; tests/numerics/gather_bounds/gb.yaml:31
dma.signal sem=s4, queue=3  ; tests/numerics/gather_bounds/gb.yaml:31
dma.wait sem=s3, queue=4  ; tests/numerics/gather_bounds/gb.yaml:32
dma.wait sem=s4, queue=4  ; tests/numerics/gather_bounds/gb.yaml:32
dma.load dst=sbuf:gb[0:+16] @0 float32 [[1,8]], src=hbm:x[+16 s0] @0 float32 [[1,8]], index=sbuf:tb[0:+16] @0 uint32 [[1,1]], index_step=8, index_bound=10, queue=4  ; tests/numerics/gather_bounds/gb.yaml:32
dma.signal sem=s5, queue=4  ; tests/numerics/gather_bounds/gb.yaml:32
dma.signal sem=s6, queue=4  ; tests/numerics/gather_bounds/gb.yaml:32
dma.wait sem=s5, queue=5  ; tests/numerics/gather_bounds/gb.yaml:33
dma.store dst=hbm:y[+16 s8] @512 float32 [[1,8]], src=sbuf:gb[0:+16] @0 float32 [[1,8]], queue=5  ; tests/numerics/gather_bounds/gb.yaml:33
dma.signal sem=s7, queue=5  ; tests/numerics/gather_bounds/gb.yaml:33
dma.wait sem=s6, queue=6  ; tests/numerics/gather_bounds/gb.yaml:34
dma.load dst=sbuf:tc[0:+16] @0 int8 [[1,1]], src=hbm:c[+16 s1] @0 int8 [[1,1]], queue=6  ; tests/numerics/gather_bounds/gb.yaml:34
dma.signal sem=s8, queue=6  ; tests/numerics/gather_bounds/gb.yaml:34
dma.wait sem=s7, queue=7  ; tests/numerics/gather_bounds/gb.yaml:35
dma.wait sem=s8, queue=7  ; tests/numerics/gather_bounds/gb.yaml:35
dma.load dst=sbuf:gc[0:+16] @0 float32 [[1,8]], src=hbm:x[+16 s0] @0 float32 [[1,8]], index=sbuf:tc[0:+16] @0 int8 [[1,1]], index_step=8, index_bound=10, queue=7  ; tests/numerics/gather_bounds/gb.yaml:35
dma.signal sem=s9, queue=7  ; tests/numerics/gather_bounds/gb.yaml:35
dma.signal sem=s10, queue=7  ; tests/numerics/gather_bounds/gb.yaml:35
dma.wait sem=s9, queue=8  ; tests/numerics/gather_bounds/gb.yaml:36
dma.store dst=hbm:y[+16 s8] @1024 float32 [[1,8]], src=sbuf:gc[0:+16] @0 float32 [[1,8]], queue=8  ; tests/numerics/gather_bounds/gb.yaml:36
dma.signal sem=s11, queue=8  ; tests/numerics/gather_bounds/gb.yaml:36
dma.wait sem=s10, queue=9  ; tests/numerics/gather_bounds/gb.yaml:37
dma.load dst=sbuf:td[0:+16] @0 int16 [[1,1]], src=hbm:d[+16 s1] @0 int16 [[1,1]], queue=9  ; tests/numerics/gather_bounds/gb.yaml:37
dma.signal sem=s12, queue=9  ; tests/numerics/gather_bounds/gb.yaml:37
dma.wait sem=s11, queue=10  ; tests/numerics/gather_bounds/gb.yaml:38
dma.wait sem=s12, queue=10  ; tests/numerics/gather_bounds/gb.yaml:38
dma.load dst=sbuf:ge[0:+16] @0 float32 [[1,1]], src=hbm:lg[+16 s5] @0 float32 [[1,1]], index=sbuf:td[0:+16] @0 int16 [[1,1]], index_step=1, index_bound=5, queue=10  ; tests/numerics/gather_bounds/gb.yaml:38
dma.signal sem=s13, queue=10  ; tests/numerics/gather_bounds/gb.yaml:38
dma.signal sem=s14, queue=10  ; tests/numerics/gather_bounds/gb.yaml:38
dma.wait sem=s13, queue=11  ; tests/numerics/gather_bounds/gb.yaml:39
dma.store dst=hbm:ye[+16 s1] @0 float32 [[1,1]], src=sbuf:ge[0:+16] @0 float32 [[1,1]], queue=11  ; tests/numerics/gather_bounds/gb.yaml:39
dma.signal sem=s15, queue=11  ; tests/numerics/gather_bounds/gb.yaml:39
dma.wait sem=s14, queue=12  ; tests/numerics/gather_bounds/gb.yaml:40
dma.load dst=sbuf:te[0:+16] @0 int32 [[1,1]], src=hbm:e[+16 s1] @0 int32 [[1,1]], queue=12  ; tests/numerics/gather_bounds/gb.yaml:40
dma.signal sem=s16, queue=12  ; tests/numerics/gather_bounds/gb.yaml:40
dma.wait sem=s15, queue=13  ; tests/numerics/gather_bounds/gb.yaml:41
dma.wait sem=s16, queue=13  ; tests/numerics/gather_bounds/gb.yaml:41
dma.store dst=hbm:z[+16 s0] @0 float32 [[1,8]], src=sbuf:ga[0:+16] @0 float32 [[1,8]], index=sbuf:te[0:+16] @0 int32 [[1,1]], index_step=8, index_bound=10, queue=13  ; tests/numerics/gather_bounds/gb.yaml:41
