// tsserve-calibrate: split-conformal calibration of a checkpoint (calibration.h).
//
//   tsserve-calibrate --model CHECKPOINT --data DATASET.csv [--split 8640/2880/2880]
//                     [--levels 0.5,0.8,0.9,0.95,0.99] [--out CONFIG] [--threads N]
//   tsserve-calibrate --model CHECKPOINT --data DATASET.csv --coverage [--split ...]
//
// Calibrating runs the model over every validation window (the split's second part) and
// stores, per level, horizon step and scaler column, the ceil((n + 1) * level)-th smallest
// of the n absolute residuals in scaled space, as the config's "calibration" block (the
// config beside the checkpoint, rewritten in place unless --out names another file).
// --coverage runs over the test windows (the third part) instead and prints how often
// forecast +- the stored quantile held the actual value, per level: the check that the
// intervals keep their promise on data the calibration never saw.

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "calibration_windows.h"
#include "tsserve/model/calibration_json.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/model_config.h"
#include "tsserve/model/model_error.h"

namespace {

using tsserve::model::Calibration;
using tsserve::model::ModelConfig;
namespace tools = tsserve::tools;

int usage() {
  std::cerr
      << "usage: tsserve-calibrate --model CHECKPOINT --data DATASET.csv [--split T/V/E]\n"
         "                         [--levels L1,L2,...] [--out CONFIG] [--coverage] [--threads N]\n"
         "  --model     checkpoint; its config is the .json beside it (also what is rewritten)\n"
         "  --data      the dataset CSV the model was trained on (date column + scaler columns)\n"
         "  --split     train/validation/test rows (default 8640/2880/2880, ETTh1's)\n"
         "  --levels    interval levels in (0, 1) (default 0.5,0.8,0.9,0.95,0.99)\n"
         "  --out       write the calibrated config here instead of beside the checkpoint\n"
         "  --coverage  print the stored calibration's coverage on the test windows; writes nothing\n";
  return 2;
}

std::vector<double> parse_levels(const std::string& text) {
  std::vector<double> levels;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    double level = 0;
    try {
      level = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || !(level > 0 && level < 1) ||
        (!levels.empty() && !(level > levels.back()))) {
      throw std::invalid_argument("--levels must be increasing numbers in (0, 1), e.g. "
                                  "0.8,0.95; got \"" + text + "\"");
    }
    levels.push_back(level);
  }
  if (levels.empty()) throw std::invalid_argument("--levels must name at least one level");
  return levels;
}

// The quantiles of `residuals` [n, F, C] at each level: conformal_rank's smallest per cell.
Calibration calibrate(const at::Tensor& residuals, const std::vector<double>& levels) {
  Calibration c;
  c.levels = levels;
  c.windows = residuals.size(0);
  c.pred_len = residuals.size(1);
  c.columns = residuals.size(2);
  for (double level : levels) {
    const std::string error = tsserve::model::conformal_rank_error(c.windows, level);
    if (!error.empty()) throw std::invalid_argument("--levels: " + error);
    const at::Tensor q = std::get<0>(
        residuals.kthvalue(tsserve::model::conformal_rank(c.windows, level), 0));  // [F, C]
    const at::Tensor flat = q.to(at::kDouble).contiguous();
    c.quantiles.insert(c.quantiles.end(), flat.data_ptr<double>(),
                       flat.data_ptr<double>() + flat.numel());
  }
  return c;
}

void print_coverage(const at::Tensor& residuals, const Calibration& c,
                    const std::vector<std::string>& columns) {
  std::printf("test windows %lld; coverage of forecast +- quantile (nominal = level)\n",
              static_cast<long long>(residuals.size(0)));
  std::printf("%6s %8s", "level", "all");
  for (const auto& name : columns) std::printf(" %7s", name.c_str());
  std::printf("\n");
  for (size_t l = 0; l < c.levels.size(); ++l) {
    const at::Tensor q =
        at::tensor(std::vector<double>(c.quantiles.begin() + static_cast<long>(l) * c.pred_len * c.columns,
                                       c.quantiles.begin() + static_cast<long>(l + 1) * c.pred_len * c.columns))
            .reshape({c.pred_len, c.columns})
            .to(at::kFloat);
    const at::Tensor held = (residuals <= q.unsqueeze(0)).to(at::kDouble);
    std::printf("%6.3g %8.4f", c.levels[l], held.mean().item<double>());
    const at::Tensor per_column = held.mean(at::IntArrayRef{0, 1});
    for (int64_t v = 0; v < c.columns; ++v) std::printf(" %7.4f", per_column[v].item<double>());
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string checkpoint, data_path, out_path, split_text = "8640/2880/2880";
  std::string levels_text = "0.5,0.8,0.9,0.95,0.99";
  bool coverage = false;
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--model" && has_value) {
      checkpoint = argv[++i];
    } else if (arg == "--data" && has_value) {
      data_path = argv[++i];
    } else if (arg == "--split" && has_value) {
      split_text = argv[++i];
    } else if (arg == "--levels" && has_value) {
      levels_text = argv[++i];
    } else if (arg == "--out" && has_value) {
      out_path = argv[++i];
    } else if (arg == "--threads" && has_value) {
      threads = std::stoi(argv[++i]);
    } else if (arg == "--coverage") {
      coverage = true;
    } else {
      return usage();
    }
  }
  if (checkpoint.empty() || data_path.empty()) return usage();

  try {
    tsserve::model::set_intra_op_threads(threads);
    const std::string config_path = tsserve::model::config_path_for(checkpoint);
    const ModelConfig config = tsserve::model::load_model_config(config_path);
    const tools::DatasetSplit split = tools::parse_split(split_text);
    const tools::ScaledDataset data = tools::read_scaled_dataset(data_path, config);
    if (coverage) {
      if (!config.calibration) {
        throw std::invalid_argument(config_path + " has no 'calibration' block; run without "
                                    "--coverage first");
      }
      const auto rows = tools::split_rows(split, tools::SplitPart::kTest, config.seq_len);
      // The calibrated columns are the scaler's last calibrated_columns() ones.
      const std::vector<std::string>& names = config.scaler->columns;
      print_coverage(tools::absolute_residuals(checkpoint, config, data, rows), *config.calibration,
                     {names.end() - config.calibrated_columns(), names.end()});
      return 0;
    }
    const auto rows = tools::split_rows(split, tools::SplitPart::kValidation, config.seq_len);
    Calibration c = calibrate(tools::absolute_residuals(checkpoint, config, data, rows),
                              parse_levels(levels_text));
    c.dataset = std::filesystem::path(data_path).filename().string();
    c.split = split.text;
    c.row_begin = rows.first;
    c.row_end = rows.second;

    std::ifstream in(config_path);
    auto root = nlohmann::ordered_json::parse(in);
    root["calibration"] = tsserve::model::calibration_to_json(c);
    const std::string target = out_path.empty() ? config_path : out_path;
    const std::string text = tsserve::model::dump_config(root);
    tsserve::model::parse_model_config(text, target);  // what we write must load
    std::ofstream(target) << text;
    std::printf("%s: calibrated on %lld validation windows (rows [%lld, %lld) of %s), levels %s\n",
                target.c_str(), static_cast<long long>(c.windows),
                static_cast<long long>(c.row_begin), static_cast<long long>(c.row_end),
                c.dataset.c_str(), c.levels_text().c_str());
  } catch (const std::exception& e) {
    std::cerr << "tsserve-calibrate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
