/// \file policy/policy_name.cuh
/// \brief The one function that spells a policy's readable name.
///
/// Every policy's name() passes its numbers to detail::policy_name, so the string formatting is compiled once per
/// translation unit instead of once per policy: 18 std::string concatenations of a float caller's policies took 1.4 of
/// the host compiler's 3.4 s at -O3.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <string>

namespace tgemm::detail {

/// A policy's name from a printf format and the policy's numbers (names are well under the buffer's length).
__attribute__((format(printf, 1, 2))) inline std::string policy_name(const char* format, ...) {
  char buffer[192];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

}  // namespace tgemm::detail
