// tsserve-client forecast/health/info/encode against a real tsserve process.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "cli_fixture.h"
#include "decoded_png.h"
#include "tsserve/client/npy_file.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/plot/forecast_plot.h"
#include "tsserve/plot/heatmap_plot.h"

namespace tsserve::client::testing {
namespace {

using ::testing::HasSubstr;

// Distinct colours in the image: a blank or single-colour picture has one or two.
size_t distinct_colours(const plot::testing::DecodedPng& png) {
  std::set<plot::testing::Rgb8> colours;
  for (int y = 0; y < png.height(); y += 2) {
    for (int x = 0; x < png.width(); x += 2) colours.insert(png.at(x, y));
  }
  return colours.size();
}

TEST_F(CliTest, ForecastFromEttCsvMatchesTheLibraryCall) {
  const auto values = write_ett_csv(path("ett.csv"), 400, 11);
  const auto run = client({"forecast", path("ett.csv"), "--format", "json", "--out", path("f.csv")});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["variables"], ett_columns());
  EXPECT_TRUE(json["scaler_applied"].get<bool>());
  EXPECT_EQ(json["input_points_used"], 336);
  // The rows continue the CSV's hourly dates: 400 rows end at 2018-01-17 15:00.
  EXPECT_EQ(json["steps"][0], "2018-01-17 16:00:00");
  EXPECT_EQ(json["steps"][95], "2018-01-21 15:00:00");

  const auto expected = library_forecast(values);
  for (size_t v = 0; v < expected.size(); ++v) {
    const auto got = json["forecast"][ett_columns()[v]].get<std::vector<double>>();
    ASSERT_EQ(got.size(), 96u);
    for (size_t h = 0; h < got.size(); ++h) {
      EXPECT_NEAR(got[h], expected[v][h], 1e-4 * (1 + std::abs(expected[v][h])))
          << ett_columns()[v] << " step " << h;
    }
  }
  std::ifstream csv(path("f.csv"));
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT");
}

TEST_F(CliTest, TableAndRawTensorsGiveTheSameNumbers) {
  write_ett_csv(path("ett.csv"), 336, 5);
  const auto table = client({"forecast", path("ett.csv"), "--columns", "OT,HUFL"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("date                         OT        HUFL"));
  const auto raw = client({"forecast", path("ett.csv"), "--columns", "OT,HUFL", "--raw"});
  EXPECT_EQ(raw.out, table.out);
}

// The date label of each of the bundled PatchTST's 42 patches (patch_len 16, stride 8 over
// the last 336 of `rows` rows that write_ett_csv dated hourly from 2018-01-01 00:00): the
// row where the patch starts, the last (padded) patch's clamped to the last row.
std::vector<std::string> patch_start_dates(int rows) {
  std::vector<std::string> dates;
  for (int p = 0; p < 42; ++p) {
    const int r = rows - 336 + std::min(p * 8, 335);
    char date[32];
    std::snprintf(date, sizeof date, "2018-01-%02d %02d:00:00", 1 + r / 24, r % 24);
    dates.push_back(date);
  }
  return dates;
}

TEST_F(CliTest, PlotAndAttentionHeatmapsAreLegiblePngs) {
  write_ett_csv(path("ett.csv"), 400, 3);
  const auto run = client({"forecast", path("ett.csv"), "--plot", path("forecast.png"),
                           "--attention", path("attention.png"), "--format", "csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const plot::testing::DecodedPng forecast(path("forecast.png"));
  plot::ForecastPlotOptions plot_options;
  plot_options.title = "t";
  const auto plot_size = plot::forecast_image_size(7, plot_options);
  EXPECT_EQ(forecast.width(), plot_size.width);
  EXPECT_EQ(forecast.height(), plot_size.height);
  EXPECT_GT(distinct_colours(forecast), 30u);

  // 3 layers x 7 variables, heads averaged, 42 x 42 patches: a 3 x 7 grid, both axes
  // labelled with the date of each patch's first row (the CSV has a date column).
  const plot::testing::DecodedPng attention(path("attention.png"));
  const std::vector<std::string> dates = patch_start_dates(400);
  std::vector<plot::HeatmapPanel> panels(
      21, plot::HeatmapPanel{"p", 42, 42, std::vector<float>(42 * 42), dates, dates});
  plot::HeatmapOptions heatmap_options;
  heatmap_options.columns = 7;
  heatmap_options.title = "t";
  const auto layout = plot::heatmap_layout(panels, heatmap_options);
  EXPECT_EQ(attention.width(), layout.image.width);
  EXPECT_EQ(attention.height(), layout.image.height);
  for (auto& panel : panels) panel.row_labels = panel.col_labels = {};
  EXPECT_GT(layout.image.width, plot::heatmap_layout(panels, heatmap_options).image.width)
      << "the labels took no room: the image was drawn without them";
  EXPECT_GT(distinct_colours(attention), 30u);
}

TEST_F(CliTest, PerHeadHeatmapsForOneVariable) {
  write_ett_csv(path("ett.csv"), 336, 4);
  const auto run = client({"forecast", path("ett.csv"), "--attention", path("heads.png"), "--heads",
                           "each", "--attention-variables", "OT", "--layers", "0,2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const plot::testing::DecodedPng heads(path("heads.png"));
  const std::vector<std::string> dates = patch_start_dates(336);
  std::vector<plot::HeatmapPanel> panels(
      8, plot::HeatmapPanel{"p", 42, 42, std::vector<float>(42 * 42), dates, dates});
  plot::HeatmapOptions options;
  options.columns = 4;  // 2 layers x 4 heads
  options.title = "t";
  EXPECT_EQ(heads.width(), plot::heatmap_layout(panels, options).image.width);
  EXPECT_EQ(heads.height(), plot::heatmap_layout(panels, options).image.height);
}

TEST_F(CliTest, BadCsvsExitThreeNamingLineAndColumn) {
  write_ett_csv(path("ett.csv"), 400, 8);
  std::ifstream in(path("ett.csv"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto write_with = [&](const std::string& name, size_t index, const std::string& replacement) {
    auto copy = lines;
    copy[index] = replacement;
    std::ofstream out(path(name));
    for (const auto& line : copy) out << line << "\n";
    return path(name);
  };
  struct Case {
    std::string file;
    std::string message;
  };
  const std::vector<Case> cases = {
      {write_with("cell.csv", 390, "2018-01-17 05:00:00,1,2,3,oops,5,6,7"),
       "line 391, column 'MULL': 'oops' is not a finite number"},
      {write_with("ragged.csv", 200, "2018-01-09 07:00:00,1,2"), "line 201 has 3 cells; the header has 8"},
  };
  for (const auto& c : cases) {
    const auto run = client({"forecast", c.file});
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_THAT(run.err, HasSubstr(c.message));
  }
  std::ofstream(path("few.csv")) << lines[0] << "\n" << lines[1] << "\n";
  auto few = client({"forecast", path("few.csv")});
  EXPECT_EQ(few.exit_code, 3);
  EXPECT_THAT(few.err, HasSubstr("has 1 data rows; 336 are needed"));
  auto unknown = client({"forecast", path("ett.csv"), "--columns", "OT,TEMP"});
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_THAT(unknown.err, HasSubstr("no column named 'TEMP'"));
  auto missing = client({"forecast", path("absent.csv")});
  EXPECT_EQ(missing.exit_code, 64);  // usage: the file argument names no file
  EXPECT_THAT(missing.err, HasSubstr("absent.csv"));
}

TEST_F(CliTest, ServerErrorsShowTheirCodeAndMessage) {
  write_ett_csv(path("ett.csv"), 400, 9);
  // 100 points are fewer than the model's 336: the server says so.
  const auto run = client({"forecast", path("ett.csv"), "--points", "100"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, HasSubstr("Forecast failed: INVALID_ARGUMENT: "));
  EXPECT_THAT(run.err, HasSubstr("336"));
  const auto layers = client({"forecast", path("ett.csv"), "--attention", path("a.png"), "--layers", "7"});
  EXPECT_EQ(layers.exit_code, 1);
  EXPECT_THAT(layers.err, HasSubstr("INVALID_ARGUMENT"));
}

TEST_F(CliTest, UnreachableServerExitsTwo) {
  write_ett_csv(path("ett.csv"), 400, 9);
  // A port nothing listens on: the server's own port after it stopped.
  const std::string target = server_->target();
  ASSERT_EQ(server_->terminate(), 0);
  server_.reset();
  const auto run = client({"forecast", path("ett.csv"), "--target", target}, false);
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("cannot reach " + target));
  const auto health = client({"health", "--target", target}, false);
  EXPECT_EQ(health.exit_code, 2) << health.err;
}

TEST_F(CliTest, HealthAndInfo) {
  const auto health = client({"health"});
  EXPECT_EQ(health.exit_code, 0) << health.err;
  EXPECT_EQ(health.out, "SERVING\n");
  const auto service = client({"health", "--service", "tsserve.v1.ForecastService", "-q"});
  EXPECT_EQ(service.exit_code, 0);
  EXPECT_EQ(service.out, "");
  const auto unknown = client({"health", "--service", "no.such.Service"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("NOT_FOUND"));

  const auto info = client({"info", "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto json = nlohmann::json::parse(info.out);
  EXPECT_EQ(json["seq_len"], 336);
  EXPECT_EQ(json["pred_len"], 96);
  EXPECT_EQ(json["device"], "cpu");
  const auto text = client({"info"});
  EXPECT_THAT(text.out, HasSubstr("seq_len: 336\n"));
  EXPECT_THAT(text.out, HasSubstr("scaler_columns: \"HUFL\", \"HULL\""));
}

TEST_F(CliTest, EncodeNpyTokensMatchesTheLibraryEncoder) {
  torch::manual_seed(3);
  const at::Tensor tokens = torch::randn({42, 16});
  write_npy(path("tokens.npy"), {{42, 16}, std::vector<float>(tokens.data_ptr<float>(),
                                                               tokens.data_ptr<float>() + 42 * 16)});
  const auto run = client({"encode", path("tokens.npy"), "--out", path("out.npy"),
                           "--attention-out", path("attention.npy"), "--heads", "each"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const TensorData output = read_npy(path("out.npy"));
  ASSERT_EQ(output.shape, (std::vector<int64_t>{42, 16}));
  const TensorData attention = read_npy(path("attention.npy"));
  EXPECT_EQ(attention.shape, (std::vector<int64_t>{3, 4, 42, 42}));

  auto model = model::load_patchtst(std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt");
  at::InferenceMode inference;
  const at::Tensor expected = model->encode(tokens.unsqueeze(0)).output.squeeze(0);
  const at::Tensor got = torch::from_blob(const_cast<float*>(output.values.data()), {42, 16});
  EXPECT_LT((got - expected).abs().max().item<float>(), 1e-5f);

  std::ofstream(path("bad.json")) << R"({"tokens": [[1, 2], [3]]})";
  const auto bad = client({"encode", path("bad.json")});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_THAT(bad.err, HasSubstr("tokens row 1 has 1 numbers; row 0 has 2"));
}

}  // namespace
}  // namespace tsserve::client::testing
