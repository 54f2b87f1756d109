// The key reference is generated from the key table: every key, with its default and rule.
#include "config/describe.hpp"

#include <doctest/doctest.h>

#include "config/load.hpp"
#include "model/mixers/registry.hpp"

using namespace ufl;

TEST_CASE("every key --set accepts is described, in the text and the Markdown page") {
  const std::string text = config::describe_keys_text();
  const std::string page = config::describe_keys_markdown();
  const std::vector<std::string> keys = config::known_keys();
  CHECK(keys.size() > 20);
  for (const std::string& key : keys) {
    CAPTURE(key);
    CHECK(text.find("\n  " + key + " = ") != std::string::npos);
    CHECK(page.find("| `" + key + "` | ") != std::string::npos);
  }
  CHECK(text.find("  train.steps = 6000\n") != std::string::npos);
  CHECK(text.find("      must be an integer ≥ 1\n") != std::string::npos);
  CHECK(page.find("| `local` | ") != std::string::npos);
}

TEST_CASE("every mixer is described, with what it is from its properties") {
  const std::string text = config::describe_keys_text();
  const std::string page = config::describe_keys_markdown();
  for (const model::Mixer<float>* mixer : model::mixers<float>()) {
    const std::string name(mixer->name());
    CAPTURE(name);
    CHECK(text.find("\n  " + name + ": ") != std::string::npos);
    CHECK(page.find("| `" + name + "` | ") != std::string::npos);
  }
  CHECK(page.find("| M from the input, softmax only, factors U, V |") != std::string::npos);
  CHECK(page.find("| one M for every input, no causal form |") != std::string::npos);
  CHECK(text.find("      M from the input, softmax blended with S by a learned gate, distance "
                  "scores, factors U, V\n") != std::string::npos);
}
