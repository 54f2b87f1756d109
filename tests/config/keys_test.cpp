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
    if (key.violation && key.owners.everyone()) CHECK(key.violation(defaults).empty());
  }
  CHECK(find_key("dataset.n") != nullptr);
  CHECK(find_key("dataset.nosie") == nullptr);
}

TEST_CASE("a default that follows another key says so; others show the spec's value") {
  CHECK(default_of(*find_key("layer.rank")) ==
        "dataset.n, or model.width / layer.heads in transformer blocks");
  CHECK(default_of(*find_key("dataset.noise")) == "0.5");
  CHECK(default_of(*find_key("dataset.freqs")) == "[2,5,9]");
}

TEST_CASE("a layer key belongs to the mixers that read it; a dataset key to its kind") {
  CHECK(find_key("layer.rank")->owners.selector == "layer.mixer");
  CHECK(find_key("layer.rank")->owners.values ==
        std::vector<std::string>{"universal", "attention", "distance", "lowrank"});
  CHECK(find_key("layer.content_init_scale")->owners.values ==
        std::vector<std::string>{"universal", "attention", "distance"});
  CHECK(find_key("layer.kernel_width")->owners.values == std::vector<std::string>{"convolution"});
  CHECK(find_key("layer.kernel_width")->owners.describe() == "mixer 'convolution'");
  CHECK(find_key("dataset.freqs")->owners.describe() == "dataset kind 'periodic'");
  CHECK(find_key("layer.mixer")->owners.everyone());
  CHECK(find_key("dataset.n")->owners.everyone());
}
