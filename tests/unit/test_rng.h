/* test_rng.h - deterministic randomness for the runtime's unit tests
 * (xorshift64*). Define TEST_RNG_SEED before including to pick a sequence. */
#ifndef TEST_RNG_H
#define TEST_RNG_H

#include <stdint.h>

#ifndef TEST_RNG_SEED
#define TEST_RNG_SEED 0x9e3779b97f4a7c15ull
#endif

static uint64_t test_rng_state = TEST_RNG_SEED;

/* The next 32 random bits. */
static uint32_t rnd32(void)
{
    test_rng_state ^= test_rng_state >> 12;
    test_rng_state ^= test_rng_state << 25;
    test_rng_state ^= test_rng_state >> 27;
    return (uint32_t)((test_rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

#endif
