dve.memset dst=sbuf:t[0:+128] @0 float32 [[1,64]], value=0.0
