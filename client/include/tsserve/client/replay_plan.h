#pragma once
// `tsserve-client replay`: walking a CSV forward as if its rows arrived one by one. At
// each forecast origin o (the first row forecast), the rows before o are history; the
// actuals that arrived since the last origin are reported first, then the forecast of
// rows o .. o+F-1 is asked for. These are the pure parts: which origins, and the
// ReportActuals request for a run of rows.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tsserve/csv/csv_window.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::client {

struct ReplayRange {
  std::size_t start = 0;   // first origin; raised to seq_len (the first with full history)
  std::size_t end = 0;     // rows past this are never used; 0 = the table's end
  std::size_t stride = 1;  // rows between origins, >= 1
  std::size_t limit = 0;   // forecasts at most; 0 = no limit
};

// The origins start, start + stride, ... while a whole forecast (pred_len rows) still
// fits before the end, at most `limit`. Throws std::invalid_argument naming the field
// when stride is 0 or the range holds no origin.
std::vector<std::size_t> replay_origins(std::size_t rows, std::size_t seq_len,
                                        std::size_t pred_len, const ReplayRange& range);

// A ReportActuals request for rows [first, last) of `table` (every column, named as in
// the table; timestamps from `times`, the rows' Unix seconds).
v1::ReportActualsRequest build_actuals_request(const csv::CsvWindow& table,
                                               const std::vector<int64_t>& times,
                                               const std::string& series_key, std::size_t first,
                                               std::size_t last);

}  // namespace tsserve::client
