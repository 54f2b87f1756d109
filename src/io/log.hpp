#pragma once
// spdlog, with fmt's formatting engine taken from libfmt rather than compiled in every file that
// logs. spdlog's logger calls fmt::detail::vformat_to<char>, which libfmt.so instantiates (fmt's
// format.cc) but fmt 9's headers do not declare `extern template`, so each of the eleven files that
// log compiled its own copy, with fmt's float and integer writers (about 80 kB of code and 3 s of
// compile time per file). This declaration makes them call libfmt's copy, the one that
// fmt::format already calls (FMT_SHARED): the same fmt 9.1 code, whose output is exact (integer
// arithmetic), so the text logged is unchanged. UFL_PCH precompiles this header in place of
// <spdlog/spdlog.h> (CMakeLists.txt).
#include <spdlog/spdlog.h>

// GCC only: clang mangles this template's dependent argument type differently from the GCC that
// built Debian's libfmt (`sr3std7is_same...E` against `srSt7is_same...`), so under clang (the fuzz
// build) the declaration would name a symbol libfmt does not have; clang compiles its own copy.
#if defined(__GNUC__) && !defined(__clang__)
FMT_BEGIN_NAMESPACE
namespace detail {
extern template void vformat_to<char>(buffer<char>&, basic_string_view<char>,
                                      basic_format_args<FMT_BUFFER_CONTEXT(char)>, locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
#endif
