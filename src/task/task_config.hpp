#pragma once
// A run's task settings (the keys task.*); rules and meanings are in config/keys.cpp.
#include <string>

namespace ufl::task {

struct TaskConfig {
  std::string kind = "denoise";  // a registered task (task/registry.hpp)
};

}  // namespace ufl::task
