// run/task_run.hpp: start_run resolves config.task.kind once and starts that task's own run,
// whose record is the registry's, with the model its data asks for.
#include <doctest/doctest.h>

#include "config/load.hpp"
#include "run/task_run.hpp"
#include "task/registry.hpp"

namespace ufl {
namespace {

// A small config of each registered task; a task added to the registry without one here fails.
config::Config small_config(const task::TaskRecord& record) {
  switch (record.kind) {
    case task::TaskKind::denoise:
      return config::parse_config(
          R"({"dataset": {"kind": "local", "n": 8, "d": 4, "train_size": 16, "test_size": 8}})",
          "start_run test");
    case task::TaskKind::next_token:
      return config::parse_config(
          R"({"task": {"kind": "next_token"},
              "dataset": {"kind": "copy", "n": 16, "vocab": 6, "segment_min": 2,
                          "segment_max": 6, "train_size": 8, "test_size": 4},
              "layer": {"mixer": "attention", "heads": 2},
              "model": {"block": "transformer", "depth": 1, "width": 16}})",
          "start_run test");
  }
  FAIL("task '" << record.name << "' has no small config in this test");
  return {};
}

TEST_CASE("every registered task starts its own run, holding the registry's record") {
  for (const task::TaskRecord& record : task::tasks()) {
    CAPTURE(record.name);
    const config::Config config = small_config(record);
    REQUIRE(config.task.kind == record.name);
    const std::unique_ptr<run::TaskRun> started = run::start_run(config, "");
    REQUIRE(started);
    CHECK(&started->record() == &record);
    CHECK(started->model().n == config.dataset.n);
    CHECK(started->describe().empty() == false);
  }
}

TEST_CASE("the registry's kinds are one per record") {
  CHECK(task::tasks().size() == 2);
  CHECK(task::task("denoise").kind == task::TaskKind::denoise);
  CHECK(task::task("next_token").kind == task::TaskKind::next_token);
}

}  // namespace
}  // namespace ufl
