#include "run/task_run.hpp"
#include "task/registry.hpp"

namespace ufl::run {

// Each task's run, in its file run/<task>_run.cpp.
std::unique_ptr<TaskRun> start_denoise(const config::Config& config, const task::TaskRecord& record,
                                       const std::string& data_dir);
std::unique_ptr<TaskRun> start_next_token(const config::Config& config,
                                          const task::TaskRecord& record,
                                          const std::string& data_dir);

std::unique_ptr<TaskRun> start_run(const config::Config& config, const std::string& data_dir) {
  const task::TaskRecord& record = task::task(config.task.kind);
  // No default: a task added to the registry without a case here is a -Wswitch warning.
  switch (record.kind) {
    case task::TaskKind::denoise:
      return start_denoise(config, record, data_dir);
    case task::TaskKind::next_token:
      return start_next_token(config, record, data_dir);
  }
  throw std::logic_error("task '" + record.name + "' has no run (run/start_run.cpp)");
}

}  // namespace ufl::run
