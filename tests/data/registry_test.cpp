// The registry of dataset kinds: each kind is one complete record, found by its name.
#include "data/registry.hpp"

#include <doctest/doctest.h>

#include <set>

using namespace ufl::data;

TEST_CASE("every kind is a complete record with a unique name") {
  std::set<std::string> names;
  for (const DatasetKind& kind : dataset_kinds()) {
    CAPTURE(kind.name);
    CHECK(names.insert(kind.name).second);
    CHECK_FALSE(kind.summary.empty());
    CHECK(static_cast<bool>(kind.check));
    // A kind is either float samples (its covariance and drawer) or tokens (its reader), with
    // what the memory estimate needs before reading.
    const bool tokens = static_cast<bool>(kind.tokens);
    CHECK(static_cast<bool>(kind.covariance) != tokens);
    CHECK(static_cast<bool>(kind.signal_drawer) != tokens);
    CHECK(static_cast<bool>(kind.token_count) == tokens);
    CHECK(static_cast<bool>(kind.vocabulary_bound) == tokens);
    CHECK(static_cast<bool>(kind.held_out_windows) == tokens);
    // kinds with partners say how the per-sample optimum uses them
    CHECK(static_cast<bool>(kind.partner_optimum) == kind.has_partners);
    CHECK(static_cast<bool>(kind.partner_estimate) == kind.has_partners);
    // routing checks need partners to route to
    CHECK((kind.routing_checks.empty() || kind.has_partners));
    CHECK(find_dataset_kind(kind.name) == &kind);
  }
  CHECK(dataset_kind_names() ==
        "local, global, periodic, lowrank, induction, text, mqar, copy, copy_text, hadamard, haar, "
        "dct, "
        "butterfly");
}

TEST_CASE("the seed paper's claim per dataset kind (spec §1)") {
  CHECK(dataset_kind("local").claimed_operator == "convolution");
  CHECK(dataset_kind("global").claimed_operator == "attention");
  CHECK(dataset_kind("periodic").claimed_operator == "fourier");
  CHECK(dataset_kind("lowrank").claimed_operator == "svd");
  CHECK(dataset_kind("induction").claimed_operator == "attention");
  // The planted kinds (docs/planted.md): the paper claims nothing about them.
  for (const char* planted : {"hadamard", "haar", "dct", "butterfly"})
    CHECK(dataset_kind(planted).claimed_operator.empty());
  CHECK(find_dataset_kind("image") == nullptr);
  CHECK_THROWS_WITH_AS(
      dataset_kind("image"),
      "dataset.kind: unknown kind \"image\" (expected one of local, global, "
      "periodic, lowrank, induction, text, mqar, copy, copy_text, hadamard, haar, dct, butterfly)",
      std::invalid_argument);
}

TEST_CASE("a kind's rules name the key to fix") {
  DatasetConfig global;
  global.kind = "global";
  global.n = 31;
  const BrokenRule broken = dataset_kind("global").check(global);
  CHECK(broken.key == "dataset.n");
  CHECK(broken.rule.find("even") != std::string::npos);
  global.n = 32;
  CHECK_FALSE(dataset_kind("global").check(global));
}
