#pragma once
// The tasks (task.kind; docs/transformer.md §1): what the model's output is compared with, the
// loss on the tape, the held-out metric and the columns of loss.csv. Each task is one record here;
// the code behind a record is in its own files (task/denoise_*.cpp, task/next_token_*.cpp), and no
// other file knows which loss is in use or compares task names. A run resolves its record once,
// when it starts (run/task_run.hpp), and hands it down.
#include <string>
#include <vector>

namespace ufl::task {

// One value per record below. The run of each (run/start_run.cpp) is chosen by a switch over it,
// so a task added here without a run is a compiler warning there, not a string compared at run
// time; the run code sits above config/ and task/ and this table knows nothing of it.
enum class TaskKind { denoise, next_token };

struct TaskRecord {
  TaskKind kind;
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
