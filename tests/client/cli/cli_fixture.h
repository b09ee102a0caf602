#pragma once
// A real tsserve process on loopback (bundled model) and the tsserve-client binary run
// against it; the bundled model loaded in-process as the reference ("the library call").

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "child_process.h"

namespace tsserve::client::testing {

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // tsserve-client <args...> --target <the server> (when with_target).
  tsserve::testing::CommandResult client(std::vector<std::string> args, bool with_target = true);
  // A file in this test's own folder.
  std::string path(const std::string& name) const;
  std::string scrape() const;

  std::unique_ptr<tsserve::testing::ServerProcess> server_;
  std::string dir_;
};

// An ETTh1-layout CSV (date + the bundled model's 7 columns), `rows` hourly rows of
// seeded random walks around the columns' means. Returns the values [column][row].
std::vector<std::vector<double>> write_ett_csv(const std::string& path, int rows, uint64_t seed);

// The bundled model's forecast [variable][step] for the last seq_len rows of `values`,
// scaled and unscaled with its scaler, computed in-process by the model library.
std::vector<std::vector<double>> library_forecast(const std::vector<std::vector<double>>& values);

const std::vector<std::string>& ett_columns();

}  // namespace tsserve::client::testing
