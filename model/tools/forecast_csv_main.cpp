// tsserve-forecast-csv: run a PatchTST checkpoint on the last window of a CSV and print
// the forecast. The in-process path the server's answers are checked against.
//
//   tsserve-forecast-csv [--model CHECKPOINT] [--threads N] CSV

#include <torch/torch.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "tsserve/csv/csv_window.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/malloc_retention.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/standard_scaler.h"

namespace {

int usage() {
  std::cerr << "usage: tsserve-forecast-csv [--model CHECKPOINT] [--threads N] CSV\n"
            << "  --model    torch.save state_dict or safetensors file; its config is the\n"
            << "             .json beside it (default: " TSSERVE_DEFAULT_MODEL ")\n"
            << "  --threads  LibTorch intra-op threads (default 1)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path = TSSERVE_DEFAULT_MODEL;
  std::string csv_path;
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--model" && i + 1 < argc) {
      model_path = argv[++i];
    } else if (arg == "--threads" && i + 1 < argc) {
      threads = std::stoi(argv[++i]);
    } else if (arg == "--help" || arg == "-h" || !csv_path.empty() || arg.rfind("--", 0) == 0) {
      return usage();
    } else {
      csv_path = arg;
    }
  }
  if (csv_path.empty()) return usage();

  try {
    tsserve::model::set_intra_op_threads(threads);
    tsserve::model::keep_freed_memory_for_reuse();  // as the server does
    tsserve::model::PatchTST model = tsserve::model::load_patchtst(model_path);
    const auto& config = model->config();
    std::vector<std::string> columns;
    if (config.scaler) columns = config.scaler->columns;
    const auto window = tsserve::csv::read_csv_window(
        csv_path, {columns, static_cast<size_t>(config.seq_len)});

    const auto n = static_cast<int64_t>(window.columns.size());
    // Column v of the window is scaler column v (no scaler: the identity).
    auto scaler = [&config](int64_t v) {
      const auto c = static_cast<size_t>(v);
      return config.scaler
                 ? tsserve::model::ScalerColumn{config.scaler->mean[c], config.scaler->std[c]}
                 : tsserve::model::ScalerColumn{};
    };
    at::Tensor series = at::empty({n, config.seq_len}, at::kFloat);
    for (int64_t v = 0; v < n; ++v) {
      for (int64_t t = 0; t < config.seq_len; ++t) {
        series[v][t] = scaler(v).scale(window.values[v][t]);
      }
    }
    at::InferenceMode inference;
    const at::Tensor forecast = model->forecast_rows(series).forecast;

    std::printf("model %s v%s (%s), last input row %s, %lld steps ahead\n", config.name.c_str(),
                config.version.c_str(), config.summary().c_str(), (window.row_labels.empty() ? "(none)" : window.row_labels.back().c_str()),
                static_cast<long long>(config.pred_len));
    std::printf("%5s", "step");
    for (const auto& name : window.columns) std::printf(" %10s", name.c_str());
    std::printf("\n");
    for (int64_t h = 0; h < config.pred_len; ++h) {
      std::printf("%5lld", static_cast<long long>(h + 1));
      for (int64_t v = 0; v < n; ++v) {
        std::printf(" %10.4f", scaler(v).unscale(forecast[v][h].item<float>()));
      }
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::cerr << "tsserve-forecast-csv: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
