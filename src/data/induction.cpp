// The `induction` dataset of docs/section7.md §2: recall the value that followed a key, at a
// blank after the key's second appearance. One layer cannot do it (a blank's own row is noise,
// and one layer weighs positions i and j by rows i and j only); two can: a shift by one position
// copies each key into the next row, then content attention matches the blank's copy against
// the copies next to the values (the induction head of Olsson et al. 2022).
#include <numeric>

#include "data/kinds.hpp"

namespace ufl::data {

InductionRole induction_role(int n, int position) {
  if (position % 2 == 0) return InductionRole::kKey;
  return position < n / 2 ? InductionRole::kValue : InductionRole::kBlank;
}

const char* induction_role_name(InductionRole role) {
  switch (role) {
    case InductionRole::kKey:
      return "key";
    case InductionRole::kValue:
      return "value";
    case InductionRole::kBlank:
      return "blank";
  }
  return "";
}

std::vector<int> induction_blanks(int n) {
  std::vector<int> blanks;
  for (int position = n / 2 + 1; position < n; position += 2) blanks.push_back(position);
  return blanks;
}

std::vector<int> induction_second_keys(int n) {
  std::vector<int> keys;
  for (int position = n / 2; position < n; position += 2) keys.push_back(position);
  return keys;
}

Eigen::MatrixXd induction_covariance(int n) {
  const int half = n / 2, pairs = n / 4;
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Identity(n, n);
  // The second half's keys are the first half's in another uniformly random order, and each
  // blank's target is the value of its key: a given pair of positions shares its key (or value)
  // with probability 1/K.
  for (int first = 0; first < half; first += 2)
    for (int second = half; second < n; second += 2) {
      covariance(first, second) = covariance(second, first) = 1.0 / pairs;
      covariance(first + 1, second + 1) = covariance(second + 1, first + 1) = 1.0 / pairs;
    }
  return covariance;
}

void draw_induction_signal(int n, int d, Rng& rng, double* clean, std::int32_t* partners) {
  // Draw order: the K keys (key m, then channel c), the K values likewise, then the first half's
  // order of the pairs and the second half's order of the keys (one Fisher–Yates shuffle each).
  const int pairs = n / 4, half = n / 2;
  std::vector<double> keys(static_cast<size_t>(pairs) * d), values(keys.size());
  for (double& value : keys) value = rng.normal();
  for (double& value : values) value = rng.normal();
  std::vector<int> first_order(pairs), second_order(pairs);
  std::iota(first_order.begin(), first_order.end(), 0);
  std::iota(second_order.begin(), second_order.end(), 0);
  rng.shuffle(first_order.begin(), first_order.end());
  rng.shuffle(second_order.begin(), second_order.end());

  std::vector<int> first_slot(pairs);  // where key m sits in the first half: pair first_slot[m]
  for (int j = 0; j < pairs; ++j) first_slot[first_order[j]] = j;
  auto place = [&](int position, const std::vector<double>& source, int index) {
    for (int channel = 0; channel < d; ++channel)
      clean[position * d + channel] = source[static_cast<size_t>(index) * d + channel];
  };
  for (int j = 0; j < pairs; ++j) {
    place(2 * j, keys, first_order[j]);
    place(2 * j + 1, values, first_order[j]);
  }
  for (int i = 0; i < pairs; ++i) {
    const int key = second_order[i], key_position = half + 2 * i, blank = key_position + 1;
    place(key_position, keys, key);
    place(blank, values, key);  // the target; the input shows noise only (hidden_rows)
    const int first_key = 2 * first_slot[key], first_value = first_key + 1;
    partners[first_key] = key_position;
    partners[key_position] = first_key;
    partners[first_value] = blank;
    partners[blank] = first_value;
  }
}

DatasetKind induction_kind() {
  DatasetKind kind;
  kind.name = "induction";
  kind.summary =
      "n/4 (key, value) pairs, then the keys again in another order, each followed by a blank "
      "whose target is its key's value; needs two layers (a shift, then content attention)";
  // The recall is content routing in the last layer, as for global (after a shift before it).
  kind.claimed_operator = "attention";
  kind.has_partners = true;
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (spec.n % 4 != 0)
      return {"dataset.n",
              "divisible by 4 for kind 'induction' (n/4 keys, each with a value and a blank)"};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) { return induction_covariance(dataset.spec.n); };
  kind.hidden_rows = [](const DatasetConfig& spec) { return induction_blanks(spec.n); };
  // The recall step's head compares each row's previous row (the copy a perfect first layer
  // gives: a blank's key, a value's key) and fills the blanks: the in-class ceiling on blanks.
  kind.head_keys = [](const Eigen::MatrixXd& input) {
    Eigen::MatrixXd previous = Eigen::MatrixXd::Zero(input.rows(), input.cols());
    previous.bottomRows(input.rows() - 1) = input.topRows(input.rows() - 1);
    return previous;
  };
  kind.head_rows = [](const DatasetConfig& spec) { return induction_blanks(spec.n); };
  kind.row_roles = [](const DatasetConfig& spec) {
    std::vector<std::string> roles;
    for (int position = 0; position < spec.n; ++position)
      roles.push_back(induction_role_name(induction_role(spec.n, position)));
    return roles;
  };
  kind.routing_checks = {
      // The blank's own row is noise, so its largest weight anywhere should be the value.
      RoutingCheck{"blank_routing",
                   [](const DatasetConfig& spec) { return induction_blanks(spec.n); }, false},
      RoutingCheck{"key_routing",
                   [](const DatasetConfig& spec) { return induction_second_keys(spec.n); }, true}};
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    return
        [n = dataset.spec.n, d = dataset.spec.d](Rng& rng, double* clean, std::int32_t* partners) {
          draw_induction_signal(n, d, rng, clean, partners);
        };
  };
  // Given the pairing, each target is linear in the noisy inputs (docs/section7.md §2): a key
  // c + σe seen twice, E[c | x_a, x_b] = (x_a + x_b)/(2+σ²); a value seen once, x_p/(1+σ²), and
  // its blank the same x_p/(1+σ²) (the blank's own input is independent noise).
  kind.partner_optimum = [](const Dataset& dataset, const std::int32_t* partners) {
    const int n = dataset.spec.n;
    const double variance = dataset.spec.noise * dataset.spec.noise;
    Eigen::MatrixXd optimum = Eigen::MatrixXd::Zero(n, n);
    for (int position = 0; position < n; ++position) {
      switch (induction_role(n, position)) {
        case InductionRole::kKey:
          optimum(position, position) = optimum(position, partners[position]) =
              1.0 / (2.0 + variance);
          break;
        case InductionRole::kValue:
          optimum(position, position) = 1.0 / (1.0 + variance);
          break;
        case InductionRole::kBlank:
          optimum(position, partners[position]) = 1.0 / (1.0 + variance);
          break;
      }
    }
    return optimum;
  };
  kind.partner_estimate = [](const Dataset& dataset, const Eigen::MatrixXd& noisy,
                             const std::int32_t* partners) {
    const int n = dataset.spec.n;
    const double variance = dataset.spec.noise * dataset.spec.noise;
    Eigen::MatrixXd estimate(noisy.rows(), noisy.cols());
    for (int position = 0; position < n; ++position) {
      switch (induction_role(n, position)) {
        case InductionRole::kKey:
          estimate.row(position) =
              (noisy.row(position) + noisy.row(partners[position])) / (2.0 + variance);
          break;
        case InductionRole::kValue:
          estimate.row(position) = noisy.row(position) / (1.0 + variance);
          break;
        case InductionRole::kBlank:
          estimate.row(position) = noisy.row(partners[position]) / (1.0 + variance);
          break;
      }
    }
    return estimate;
  };
  return kind;
}

}  // namespace ufl::data
