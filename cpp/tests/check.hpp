// A minimal assertion helper for the ctest programs: CHECK keeps going and counts, main returns the result.
#pragma once

#include <iostream>
#include <string>

namespace orbench_test {

inline int failures = 0;
inline int checks = 0;

inline void check(bool ok, const char* expression, const char* file, int line) {
  ++checks;
  if (!ok) {
    ++failures;
    std::cerr << file << ":" << line << ": CHECK failed: " << expression << "\n";
  }
}

inline int finish(const char* name) {
  std::cout << name << ": " << (checks - failures) << " passed, " << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace orbench_test

#define CHECK(expr) ::orbench_test::check(static_cast<bool>(expr), #expr, __FILE__, __LINE__)

// Checks that `statement` throws orbench::WorkerError of kind `expected_kind`.
#define CHECK_WORKER_ERROR(statement, expected_kind)                             \
  do {                                                                           \
    bool thrown_ = false;                                                        \
    try {                                                                        \
      statement;                                                                 \
    } catch (const orbench::WorkerError& e) {                                    \
      thrown_ = e.kind() == (expected_kind);                                     \
    }                                                                            \
    ::orbench_test::check(thrown_, #statement " throws " #expected_kind, __FILE__, __LINE__); \
  } while (0)
