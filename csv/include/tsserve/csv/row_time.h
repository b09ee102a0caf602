#pragma once
// Timestamps of CSV rows ("2018-06-26 19:00:00", "2018-06-26"): parsed to Unix seconds
// (UTC) so the request can carry them, and the forecast's times (the server continues
// the request's step: ForecastResponse.forecast_timestamps) written back the same way.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tsserve::csv {

// "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "YYYY-MM-DD HH:MM:SS" (a 'T' may replace the space).
std::optional<int64_t> parse_row_time(const std::string& text);

// All labels as Unix seconds, or nullopt when any fails to parse or they do not increase.
std::optional<std::vector<int64_t>> parse_row_times(const std::vector<std::string>& labels);

// Unix seconds (UTC) as labels formatted like `like`, a row label: "YYYY-MM-DD" when it
// is a date alone, else "YYYY-MM-DD HH:MM:SS".
std::vector<std::string> format_row_times(const std::vector<int64_t>& times,
                                          const std::string& like);

}  // namespace tsserve::csv
