#pragma once
// The key reference, generated from the key table (config/keys.hpp) and the dataset kinds'
// records (data/registry.hpp): `ufl config --describe` prints it as text, `--markdown` as the
// page docs/config.md (a test checks that the committed page is up to date).
#include <string>

namespace ufl::config {

// Every key with its default, its rule and one line of meaning, for a terminal.
std::string describe_keys_text();

// The same as a Markdown page, with the dataset kinds.
std::string describe_keys_markdown();

}  // namespace ufl::config
