#pragma once
// Shared by the fuzz targets: an invariant check that aborts (libFuzzer then saves the input as a
// crash) with a message saying which property failed.
#include <cstdio>
#include <cstdlib>

#define UFL_FUZZ_CHECK(condition, message)                                                \
  do {                                                                                    \
    if (!(condition)) {                                                                   \
      std::fprintf(stderr, "ufl fuzz invariant failed at %s:%d: %s\n  (%s)\n", __FILE__, \
                   __LINE__, (message), #condition);                                      \
      std::abort();                                                                       \
    }                                                                                     \
  } while (0)
