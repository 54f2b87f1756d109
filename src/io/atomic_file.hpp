#pragma once
// Whole-file writes that never leave a half-written file behind: a reader (or a crash) sees either
// the old file or the complete new one. Whole-file reads with the same one-line errors.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace ufl::io {

// Writes `contents` to a temporary file next to `path`, syncs it to disk and renames it over
// `path`. On failure the temporary is removed, `path` is left as it was, and IoError is thrown.
// A string_view may hold binary data.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

// The same, with the contents given as pieces written one after another, so that a header and a
// large data block need not be copied into one buffer first.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::string_view> pieces);

// The whole file as bytes; throws IoError naming the file if it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace ufl::io
