// Shared by the library-call programs: a failed check prints "FAIL <what>
// (line N)" and exits 1, which libcalls_integration_test.cpp reports.
#ifndef RC_TEST_LIBCALLS_PROGRAM_CHECK_H
#define RC_TEST_LIBCALLS_PROGRAM_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CHECK(cond, what)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      std::printf("FAIL %s (line %d)\n", what, __LINE__);                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#endif
