#pragma once
// The dataset-level StandardScaler a model was trained behind (model.json's "scaler").

#include <string>
#include <vector>

namespace tsserve::model {

// Per column, population std (as sklearn's StandardScaler).
struct ScalerStats {
  std::vector<std::string> columns;
  std::vector<double> mean;
  std::vector<double> std;
};

}  // namespace tsserve::model
