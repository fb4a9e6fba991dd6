.kernel k
.target trn1
.tile acc psum float32 [128, 8] bufs 1 p[0:+128] @0 slot 2048
pool.iota dst=psum:acc[0:+128] @0 float32 [[1,8]], expr=p + f
