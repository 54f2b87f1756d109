#pragma once
#include "task/run.hpp"

namespace ufl::task {

// The denoise task's run (task/run.hpp).
std::unique_ptr<TaskRun> start_denoise(const config::Config& config, const std::string& data_dir);

}  // namespace ufl::task
