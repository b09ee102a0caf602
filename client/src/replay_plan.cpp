#include "tsserve/client/replay_plan.h"

#include <algorithm>
#include <stdexcept>

namespace tsserve::client {

std::vector<std::size_t> replay_origins(std::size_t rows, std::size_t seq_len,
                                        std::size_t pred_len, const ReplayRange& range) {
  if (range.stride == 0) throw std::invalid_argument("stride: must be at least 1");
  const std::size_t end = range.end == 0 ? rows : std::min(range.end, rows);
  std::vector<std::size_t> origins;
  for (std::size_t o = std::max(range.start, seq_len); o + pred_len <= end; o += range.stride) {
    if (range.limit != 0 && origins.size() == range.limit) break;
    origins.push_back(o);
  }
  if (origins.empty()) {
    throw std::invalid_argument(
        "start: no forecast fits: origin " + std::to_string(std::max(range.start, seq_len)) +
        " needs rows up to " + std::to_string(std::max(range.start, seq_len) + pred_len) +
        ", the table (or --end) has " + std::to_string(end));
  }
  return origins;
}

v1::ReportActualsRequest build_actuals_request(const csv::CsvWindow& table,
                                               const std::vector<int64_t>& times,
                                               const std::string& series_key, std::size_t first,
                                               std::size_t last) {
  v1::ReportActualsRequest request;
  request.set_series_key(series_key);
  for (const std::string& column : table.columns) request.add_variable_names(column);
  for (std::size_t row = first; row < last; ++row) {
    request.add_timestamps(times[row]);
    for (const auto& column : table.values) request.add_values(column[row]);
  }
  return request;
}

}  // namespace tsserve::client
