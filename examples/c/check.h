/* What the C examples share: counting failed checks, and ending with PASS or FAIL.
 * CHECK(cond, printf-arguments) reports a false condition with its place and counts it;
 * EXPECT(call, status) does so for a call whose status differs (with `err`'s message, a
 * tld4_error named err in scope); finish(what) prints PASS or FAIL and gives the exit code. */
#ifndef TLD4_EXAMPLES_CHECK_H
#define TLD4_EXAMPLES_CHECK_H

#include <stdio.h>

static int failures = 0;

#define CHECK(cond, ...)                                    \
  do {                                                      \
    if (!(cond)) {                                          \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                         \
      fprintf(stderr, "\n");                                \
      failures++;                                           \
    }                                                       \
  } while (0)

#define EXPECT(call, status)                                                            \
  do {                                                                                  \
    tld4_status got_ = (call);                                                          \
    if (got_ != (status)) {                                                             \
      fprintf(stderr, "FAIL %s:%d: %s gave %d, expected %d: %s\n", __FILE__, __LINE__, \
              #call, (int)got_, (int)(status), err.message);                            \
      failures++;                                                                       \
    }                                                                                   \
  } while (0)

/* PASS: what (exit 0), or FAIL with the number of failed checks (exit 1). */
static int finish(const char *what) {
  if (failures) {
    printf("FAIL (%d checks)\n", failures);
    return 1;
  }
  printf("PASS: %s\n", what);
  return 0;
}

#endif
