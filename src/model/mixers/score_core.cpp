// The dot score function's one instance (score_core.hpp).
#include "model/mixers/score_core.hpp"

namespace ufl::model {

const ScoreFunction& dot_scores() {
  static const DotScores function;
  return function;
}

}  // namespace ufl::model
