#include "cli_fixture.h"

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::client::testing {
namespace {

model::PatchTST& bundled_model() {
  static model::PatchTST model =
      model::load_patchtst(std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt");
  return model;
}

}  // namespace

const std::vector<std::string>& ett_columns() {
  return bundled_model()->config().scaler->columns;
}

void CliTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::string(TSSERVE_CLI_TEST_OUT) + "/" + info->test_suite_name() + "." + info->name();
  std::filesystem::create_directories(dir_);
  server_ = std::make_unique<tsserve::testing::ServerProcess>(TSSERVE_SERVER_BINARY);
}

void CliTest::TearDown() {
  if (server_) {
    EXPECT_EQ(server_->terminate(), 0) << server_->log();
  }
}

tsserve::testing::CommandResult CliTest::client(std::vector<std::string> args, bool with_target) {
  args.insert(args.begin(), TSSERVE_CLIENT_BINARY);
  if (with_target) {
    args.push_back("--target");
    args.push_back(server_->target());
  }
  return tsserve::testing::run_command(args);
}

std::string CliTest::path(const std::string& name) const { return dir_ + "/" + name; }

std::string CliTest::scrape() const {
  return tsserve::testing::http_get(server_->metrics_port(), "/metrics");
}

std::vector<std::vector<double>> write_ett_csv(const std::string& path, int rows, uint64_t seed) {
  const auto& scaler = *bundled_model()->config().scaler;
  std::mt19937_64 random(seed);
  std::normal_distribution<double> step(0.0, 0.1);
  std::vector<std::vector<double>> values(scaler.columns.size(), std::vector<double>(rows));
  std::ofstream file(path);
  file << "date";
  for (const auto& name : scaler.columns) file << "," << name;
  file << "\n";
  std::vector<double> level(scaler.mean.begin(), scaler.mean.end());
  for (int r = 0; r < rows; ++r) {
    char date[32];
    std::snprintf(date, sizeof date, "2018-01-%02d %02d:00:00", 1 + r / 24, r % 24);
    file << date;
    for (size_t c = 0; c < level.size(); ++c) {
      level[c] += scaler.std[c] * step(random);
      // Four decimals, as the ETT files have; the value used is the one written.
      char cell[32];
      std::snprintf(cell, sizeof cell, "%.4f", level[c]);
      values[c][static_cast<size_t>(r)] = std::stod(cell);
      file << "," << cell;
    }
    file << "\n";
  }
  return values;
}

std::vector<std::vector<double>> library_forecast(const std::vector<std::vector<double>>& values) {
  auto& model = bundled_model();
  const auto& config = model->config();
  const auto& scaler = *config.scaler;
  const int64_t n = static_cast<int64_t>(values.size());
  at::Tensor series = at::empty({n, config.seq_len}, at::kFloat);
  for (int64_t v = 0; v < n; ++v) {
    const auto& column = values[static_cast<size_t>(v)];
    for (int64_t t = 0; t < config.seq_len; ++t) {
      const double x = column[column.size() - static_cast<size_t>(config.seq_len - t)];
      series[v][t] = static_cast<float>((x - scaler.mean[v]) / scaler.std[v]);
    }
  }
  at::InferenceMode inference;
  const at::Tensor forecast = model->forecast_rows(series).forecast;
  std::vector<std::vector<double>> result(static_cast<size_t>(n));
  for (int64_t v = 0; v < n; ++v) {
    for (int64_t h = 0; h < config.pred_len; ++h) {
      result[static_cast<size_t>(v)].push_back(forecast[v][h].item<float>() * scaler.std[v] +
                                               scaler.mean[v]);
    }
  }
  return result;
}

}  // namespace tsserve::client::testing
