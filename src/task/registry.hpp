#pragma once
// The tasks (task.kind; docs/transformer.md §1): what the model's output is compared with, the
// loss on the tape, the held-out metric and the columns of loss.csv. Each task is one record here;
// the code behind a record is in its own files (task/denoise_*.cpp, task/next_token_*.cpp), and no
// other file knows which loss is in use or compares task names. A run resolves its record once,
// when it starts (task/run.hpp), and hands it down.
#include <memory>
#include <string>
#include <vector>

namespace ufl::config {
struct Config;
}

namespace ufl::task {

class TaskRun;
struct TaskRecord;
// Reads or draws the data of `config` (from `data_dir` when given), builds and initialises the
// model: a run of the task `record` (task/run.hpp).
using StartRun = std::unique_ptr<TaskRun> (*)(const config::Config& config,
                                              const TaskRecord& record,
                                              const std::string& data_dir);

struct TaskRecord {
  std::string name;     // the value of task.kind
  std::string summary;  // one line for --describe and the docs
  // loss.csv: step,lr,loss,<loss_column>,orthogonality,<metric_column>[,train_bits,val_bits].
  std::string loss_column;    // the task's own loss on the training minibatch
  std::string metric_column;  // its held-out value at each evaluation
  // The losses are in nats per token: loss.csv and metrics.json add them in bits (÷ ln 2).
  bool bits = false;
  // Reads token data (dataset kinds with a token record) rather than float samples.
  bool tokens = false;
  StartRun start = nullptr;
};

const std::vector<TaskRecord>& tasks();
const TaskRecord* find_task(const std::string& name);
// Throws std::invalid_argument listing the tasks if none is called `name`.
const TaskRecord& task(const std::string& name);
std::string task_names();  // "denoise, next_token"

}  // namespace ufl::task
