# Suite firmware-qemu: examples/firmware built as a Cortex-M4F image
# (arm-none-eabi-gcc, freestanding) and run under qemu-system-arm (MPS2 AN386,
# semihosting): softmax at N = 256 and matmul at M = 128, K = 256, N = 512 each
# print the output checksum of the same main.c built for the host. Without
# the cross compiler or QEMU (tools/deps.sh installs both) it says so and
# counts nothing.
SUITES += firmware-qemu
.PHONY: suite-firmware-qemu
suite-firmware-qemu: $(TILEGEN)
	@if ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v qemu-system-arm >/dev/null 2>&1; then \
	  echo "[  SKIPPED ] arm-none-eabi-gcc or qemu-system-arm not installed (make deps)"; \
	  echo "0 passed, 0 failed"; exit 0; fi; \
	p=0; f=0; top=$$(pwd); \
	for k in softmax matmul; do \
	  case $$k in softmax) defs="-D N=256";; matmul) defs="-D M=128 -D K=256 -D N=512";; esac; \
	  out=$$top/$(BUILD)/firmware-qemu/$$k; rm -rf $$out; mkdir -p $$out; \
	  if $(MAKE) -s --no-print-directory -C examples/firmware run KERNEL=$$k DEFS="$$defs" OUT=$$out \
	       TILEGEN=$$top/$(TILEGEN) >$$out/log 2>&1; then \
	    echo "[       OK ] $$k ($$defs) on a Cortex-M4F under QEMU: $$(cat $$out/fw.out)"; p=$$((p+1)); \
	  else echo "[  FAILED  ] $$k ($$defs) under QEMU (log: $$out/log)"; tail -8 $$out/log; f=$$((f+1)); fi; \
	done; \
	echo "$$p passed, $$f failed"
