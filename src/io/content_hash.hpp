#pragma once
// A fast, non-cryptographic fingerprint of a file's bytes (64-bit FNV-1a), so that a run can tell
// whether the corpus it trained on is the one it resumes on (docs/transformer.md §4). It detects
// edits, not tampering: two texts made to collide are beyond its job.
#include <cstdint>
#include <string>
#include <string_view>

namespace ufl::io {

constexpr std::uint64_t kContentHashStart = 0xcbf29ce484222325ULL;  // FNV-1a 64's offset basis

// Continues the hash `hash` over `bytes` (start with kContentHashStart).
std::uint64_t content_hash(std::string_view bytes, std::uint64_t hash = kContentHashStart);

// "cbf29ce484222325": 16 hexadecimal digits, as manifest.json records it.
std::string content_hash_text(std::uint64_t hash);

}  // namespace ufl::io
