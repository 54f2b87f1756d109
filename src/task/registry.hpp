#pragma once
// The tasks (task.kind; docs/transformer.md §1): what the model's output is compared with, the
// loss on the tape, the held-out metric and the columns of loss.csv. Each task is one record here;
// the code behind a record is in its own files (task/denoise_*.cpp, task/next_token_*.cpp), and no
// other file knows which loss is in use or compares task names.
#include <string>
#include <vector>

namespace ufl::task {

// Which task a record is, for the one switch that starts its run (task/run.cpp).
enum class TaskId { kDenoise, kNextToken };

struct TaskRecord {
  TaskId id;
  std::string name;     // the value of task.kind
  std::string summary;  // one line for --describe and the docs
  // loss.csv: step,lr,loss,<loss_column>,orthogonality,<metric_column>[,train_bits,val_bits].
  std::string loss_column;    // the task's own loss on the training minibatch
  std::string metric_column;  // its held-out value at each evaluation
  // The losses are in nats per token: loss.csv and metrics.json add them in bits (÷ ln 2).
  bool bits = false;
  // Reads token data (dataset kinds with a token record) rather than float samples.
  bool tokens = false;
};

const std::vector<TaskRecord>& tasks();
const TaskRecord* find_task(const std::string& name);
// Throws std::invalid_argument listing the tasks if none is called `name`.
const TaskRecord& task(const std::string& name);
std::string task_names();  // "denoise, next_token"

}  // namespace ufl::task
