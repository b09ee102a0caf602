#pragma once
// Reads the last `rows` rows of chosen columns from a CSV with a header row (the ETT
// layout: a date column, then numeric columns). Errors name the line and the column.

#include <stdexcept>
#include <string>
#include <vector>

namespace tsserve::tools {

struct CsvWindow {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> values;  // [column][row], oldest row first
  std::string last_timestamp;               // first column of the last row
};

// columns empty: every column but the first (the date column).
CsvWindow read_csv_window(const std::string& path, const std::vector<std::string>& columns,
                          size_t rows);

}  // namespace tsserve::tools
