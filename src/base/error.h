// Errors: one type for user and input errors, an always-on CHECK for bugs.
//
// User errors (bad files, limits exceeded, malformed input) throw qgpu::Error with a
// complete message: where, what, and what to do. Bugs abort with file:line via CHECK.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace qgpu {

// The one error type for user and input errors; the message is complete.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws Error with a fmt-formatted message.
template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) {
  throw Error(fmt::format(f, std::forward<Args>(args)...));
}

// Formats "file:line:col: message", the source line and a caret under column col (1-based).
std::string diagnostic(std::string_view file, int line, int col, std::string_view message,
                       std::string_view source_line);

[[noreturn]] inline void check_failed(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
  std::abort();
}

}  // namespace qgpu

// Invariant check, always on: aborts with file:line. Not for user errors.
#define CHECK(cond) \
  ((cond) ? (void)0 : ::qgpu::check_failed(#cond, __FILE__, __LINE__))
