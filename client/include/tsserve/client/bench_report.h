#pragma once
// A bench run's results for people (a table per run, errors by code, the server's queue
// vs compute split) and for programs (JSON).

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "tsserve/client/load_generator.h"

namespace tsserve::client {

struct BenchDescription {
  std::vector<std::string> targets;
  int variables = 0;
  int points = 0;
  bool attention = false;
};

// "8" -> {8}; "1,4,16" -> {1, 4, 16}; "1..128" -> {1, 2, 4, ..., 128} (doubling; the upper
// bound is included even when not a power of two). Throws std::invalid_argument naming
// `option` for anything else.
std::vector<double> parse_sweep(const std::string& text, const std::string& option);

nlohmann::ordered_json stage_json(const StageRecord& record, int rows_per_request);
nlohmann::ordered_json bench_json(const BenchDescription& description,
                                  const std::vector<StageRecord>& records);
void write_bench_table(std::ostream& out, const BenchDescription& description,
                       const std::vector<StageRecord>& records);

}  // namespace tsserve::client
