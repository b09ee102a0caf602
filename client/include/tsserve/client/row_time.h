#pragma once
// Timestamps of CSV rows ("2018-06-26 19:00:00", "2018-06-26"): parsed to Unix seconds
// (UTC) so the request can carry them, and continued past the last row so a forecast's
// rows are labelled with the times they predict.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tsserve::client {

// "YYYY-MM-DD", "YYYY-MM-DD HH:MM", "YYYY-MM-DD HH:MM:SS" (a 'T' may replace the space).
std::optional<int64_t> parse_row_time(const std::string& text);

// All labels as Unix seconds, or nullopt when any fails to parse or they do not increase.
std::optional<std::vector<int64_t>> parse_row_times(const std::vector<std::string>& labels);

// `count` labels after the last of `labels`, spaced like its last two, formatted like it
// ("YYYY-MM-DD HH:MM:SS" or "YYYY-MM-DD"). Empty when the labels are not times.
std::vector<std::string> continue_row_times(const std::vector<std::string>& labels, size_t count);

}  // namespace tsserve::client
