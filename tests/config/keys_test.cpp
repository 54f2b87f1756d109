// The key table: every key documented, every default obeying its own rule, every path unique.
#include "config/keys.hpp"

#include <doctest/doctest.h>

#include <set>

#include "config/load.hpp"

using namespace ufl::config;

TEST_CASE("every key has a meaning, a unique path and a default that obeys its rule") {
  std::set<std::string> paths;
  const Config defaults = parse_config("{}", "t");
  for (const Key& key : keys()) {
    CAPTURE(key.path);
    CHECK(paths.insert(key.path).second);
    CHECK_FALSE(key.meaning.empty());
    CHECK_FALSE(default_of(key).empty());
    if (key.violation && key.owner_kind.empty()) CHECK(key.violation(defaults).empty());
  }
  CHECK(find_key("dataset.n") != nullptr);
  CHECK(find_key("dataset.nosie") == nullptr);
}

TEST_CASE("a default that follows another key says so; others show the spec's value") {
  CHECK(default_of(*find_key("layer.rank")) == "dataset.n");
  CHECK(default_of(*find_key("dataset.noise")) == "0.5");
  CHECK(default_of(*find_key("dataset.freqs")) == "[2,5,9]");
}
