#include "results/run_writer.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"

namespace ufl::results {

void write_json(const std::filesystem::path& path, const nlohmann::json& value) {
  io::write_file_atomic(path, value.dump(2) + "\n");
}

void write_parameters(const std::filesystem::path& folder, const model::Model<float>& model) {
  const model::Parameters<float>& params = model.params;
  for (const model::ParameterSlice& slice : params.slices) {
    const std::filesystem::path path = folder / "params" / (slice.name + ".npy");
    std::filesystem::create_directories(path.parent_path());
    io::write_npy(path, params.values.data() + slice.offset,
                  {std::size_t(slice.rows), std::size_t(slice.cols)});
  }
  // The arrays the mixer of each part measured as a layer (model/block.hpp) derives from its
  // parameters (Σ = softplus(s)): Section 8's names for one layer, prefixed layer<l>/ in a stack.
  const std::vector<model::PartIndex> layers =
      model::parts_measured(model, model::Measured::kAsLayer);
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const model::PartIndex at = layers[l];
    const std::string prefix = layers.size() == 1 ? "" : "layer" + std::to_string(l + 1) + "/";
    for (const auto& array :
         model.part(at.block, at.part)
             .mixer->derived_arrays(model.mixer_parameters(at.block, at.part))) {
      const std::filesystem::path path = folder / (prefix + array.name + ".npy");
      std::filesystem::create_directories(path.parent_path());
      io::write_npy(path, array.values.data(), array.shape);
    }
  }
}

void read_parameters(const std::filesystem::path& folder, model::Parameters<float>& params) {
  for (const model::ParameterSlice& slice : params.slices) {
    const auto values = io::read_npy_values(folder / "params" / (slice.name + ".npy"),
                                            {std::size_t(slice.rows), std::size_t(slice.cols)});
    for (std::size_t e = 0; e < values.size(); ++e)
      params.values[slice.offset + e] = static_cast<float>(values[e]);
  }
}

void write_loss_curve(const std::filesystem::path& folder,
                      const std::vector<train::LossPoint>& curve, const LossColumns& task) {
  std::ostringstream csv;
  csv << "step,lr,loss," << task.task_loss << ",orthogonality," << task.metric;
  if (task.bits) csv << ",train_bits,val_bits";
  for (const std::string& column : task.held_out) csv << ',' << column;
  csv << '\n';
  char line[256];
  auto held_out = [&](double value, double factor) {
    if (std::isnan(value)) return;  // empty between evaluations
    std::snprintf(line, sizeof line, "%.9g", value * factor);
    csv << line;
  };
  for (const train::LossPoint& point : curve) {
    std::snprintf(line, sizeof line, "%d,%.9g,%.9g,%.9g,%.9g,", point.step, point.learning_rate,
                  point.loss, point.task_loss, point.orthogonality);
    csv << line;
    held_out(point.test_metric, 1.0);
    if (task.bits) {
      std::snprintf(line, sizeof line, ",%.9g,", point.task_loss / std::numbers::ln2);
      csv << line;
      held_out(point.test_metric, 1.0 / std::numbers::ln2);
    }
    for (std::size_t c = 0; c < task.held_out.size(); ++c) {
      csv << ',';
      if (c < point.held_out.size()) held_out(point.held_out[c], 1.0);
    }
    csv << '\n';
  }
  io::write_file_atomic(folder / "loss.csv", csv.str());
}

void write_trajectory(const std::filesystem::path& folder, const std::vector<std::string>& columns,
                      const std::vector<train::ProbeRow>& rows) {
  std::ostringstream csv;
  csv << "step";
  for (const std::string& column : columns) csv << ',' << column;
  csv << '\n';
  char text[64];
  for (const train::ProbeRow& row : rows) {
    csv << row.step;
    for (double value : row.values) {
      csv << ',';
      if (!std::isnan(value)) {
        std::snprintf(text, sizeof text, "%.9g", value);
        csv << text;
      }
    }
    csv << '\n';
  }
  io::write_file_atomic(folder / "trajectory.csv", csv.str());
}

void write_array(const std::filesystem::path& folder, const analysis::NamedArray& array) {
  const auto path = folder / (array.name + ".npy");
  std::filesystem::create_directories(path.parent_path());
  if (array.integer) {
    const std::vector<std::int32_t> integers(array.values.begin(), array.values.end());
    io::write_npy(path, integers.data(), array.shape);
  } else {
    io::write_npy(path, array.values.data(), array.shape);
  }
}

void write_analysis(const std::filesystem::path& folder, const analysis::RunAnalysis& analysis) {
  for (const analysis::NamedArray& array : analysis.arrays) write_array(folder, array);
  write_json(folder / "metrics.json", analysis.metrics);
}

}  // namespace ufl::results
