#include "task/run.hpp"

#include "task/denoise_run.hpp"
#include "task/next_token_run.hpp"
#include "task/registry.hpp"

namespace ufl::task {

std::unique_ptr<TaskRun> start_run(const config::Config& config, const std::string& data_dir) {
  switch (task(config.task.kind).id) {
    case TaskId::kDenoise:
      return start_denoise(config, data_dir);
    case TaskId::kNextToken:
      return start_next_token(config, data_dir);
  }
  return nullptr;
}

}  // namespace ufl::task
