#include "task/registry.hpp"

#include <stdexcept>

namespace ufl::task {

const std::vector<TaskRecord>& tasks() {
  static const std::vector<TaskRecord> table = {
      {TaskKind::denoise, "denoise",
       "recover the clean C from the noisy X of a synthetic kind; mean squared error "
       "(docs/experiment.md)",
       "mse", "test_mse", false, false},
      {TaskKind::next_token, "next_token",
       "predict each next token of text or mqar sequences through a tied output head; "
       "cross-entropy in nats (docs/transformer.md)",
       "train_loss", "val_loss", true, true},
  };
  return table;
}

const TaskRecord* find_task(const std::string& name) {
  for (const TaskRecord& record : tasks())
    if (record.name == name) return &record;
  return nullptr;
}

const TaskRecord& task(const std::string& name) {
  if (const TaskRecord* record = find_task(name)) return *record;
  throw std::invalid_argument("unknown task.kind '" + name + "'; one of " + task_names());
}

std::string task_names() {
  std::string names;
  for (const TaskRecord& record : tasks()) names += (names.empty() ? "" : ", ") + record.name;
  return names;
}

}  // namespace ufl::task
