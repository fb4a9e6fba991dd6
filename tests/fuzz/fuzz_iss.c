/* fuzz_iss.c - libFuzzer target over decode + execute: arbitrary bytes get
 * their size and checksum fields fixed up (so mutants reach the structural
 * checks), and whatever tg_prog_decode accepts runs on the ISS and on the
 * timing model with a small budget (fuzz_exec.h). Any crash, leak or UB is a
 * hole in the ISS's contract (docs/iss.md); found inputs go to corpus_prog/. */
#include "fuzz_exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_test_one(data, size); }
