#pragma once
// Reads the last rows of a CSV table with a header row (the ETT layout: a `date` column,
// then numeric columns) as one series per column. Every error names the file, and the
// line and column where it applies, so a script can point its user at the cell.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace tsserve::csv {

// A CSV problem: `line` is 1-based (the header is line 1), 0 when the error concerns the
// whole file; `column` is the header name, empty when not about one column.
class CsvError : public std::runtime_error {
 public:
  CsvError(const std::string& message, size_t line, std::string column)
      : std::runtime_error(message), line_(line), column_(std::move(column)) {}
  size_t line() const { return line_; }
  const std::string& column() const { return column_; }

 private:
  size_t line_;
  std::string column_;
};

struct CsvWindow {
  std::vector<std::string> columns;         // the chosen columns, in the order asked for
  std::vector<std::vector<double>> values;  // [column][row], oldest row first
  // The first column's cells of the kept rows when that column is not numeric (the ETT
  // `date` column), oldest first; empty otherwise.
  std::vector<std::string> row_labels;
  std::string label_column;                 // its header name, e.g. "date"
};

struct CsvSelection {
  // Columns by header name. Empty: every column whose first data cell is a number.
  std::vector<std::string> columns;
  // Keep the last `rows` data rows; the file must hold at least that many. 0: all rows.
  size_t rows = 0;
};

CsvWindow read_csv_window(const std::string& path, const CsvSelection& selection);

// One CSV line split into cells; double-quoted cells may hold commas and "" escapes.
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace tsserve::csv
