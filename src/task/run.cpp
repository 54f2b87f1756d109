#include "task/run.hpp"

#include "task/registry.hpp"

namespace ufl::task {

std::unique_ptr<TaskRun> start_run(const config::Config& config, const std::string& data_dir) {
  const TaskRecord& record = task(config.task.kind);
  return record.start(config, record, data_dir);
}

}  // namespace ufl::task
