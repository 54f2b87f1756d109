#include "io/content_hash.hpp"

#include <cstdio>

namespace ufl::io {

std::uint64_t content_hash(std::string_view bytes, std::uint64_t hash) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  for (const char byte : bytes) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= kPrime;
  }
  return hash;
}

std::string content_hash_text(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace ufl::io
