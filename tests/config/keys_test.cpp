// The key table: every key documented, every default obeying its own rule, every path unique.
#include "config/keys.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "config/load.hpp"
#include "model/mixers/registry.hpp"

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
  // Generated from the registry: each mixer's own test pins what it reads (Mixer::config_keys),
  // so a new mixer needs no line here.
  std::set<std::string> read;
  for (const ufl::model::Mixer<float>* mixer : ufl::model::mixers<float>())
    for (const std::string& path : mixer->config_keys()) {
      CAPTURE(path);
      REQUIRE(find_key(path) != nullptr);
      CHECK(find_key(path)->owners.selector == "layer.mixer");
      read.insert(path);
    }
  CHECK(read.count("layer.rank") == 1);
  for (const Key& key : keys()) {
    if (key.owners.selector != "layer.mixer") continue;
    CAPTURE(key.path);
    CHECK(read.count(key.path) == 1);  // a layer key that no mixer reads belongs to none
    std::vector<std::string> readers;
    for (const ufl::model::Mixer<float>* mixer : ufl::model::mixers<float>()) {
      const std::vector<std::string> reads = mixer->config_keys();
      if (std::find(reads.begin(), reads.end(), key.path) != reads.end())
        readers.emplace_back(mixer->name());
    }
    CHECK(key.owners.values == readers);
    if (readers.size() == 1) CHECK(key.owners.describe() == "mixer '" + readers.front() + "'");
  }
  CHECK(find_key("dataset.freqs")->owners.describe() == "dataset kind 'periodic'");
  CHECK(find_key("layer.mixer")->owners.everyone());
  CHECK(find_key("dataset.n")->owners.everyone());
}
