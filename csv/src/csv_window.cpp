#include "tsserve/csv/csv_window.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <fstream>

namespace tsserve::csv {
namespace {

struct Row {
  size_t line;
  std::vector<std::string> cells;
};

bool parse_number(const std::string& cell, double* value) {
  if (cell.empty()) return false;
  const char* begin = cell.c_str();
  char* end = nullptr;
  *value = std::strtod(begin, &end);
  return end == begin + cell.size() && std::isfinite(*value);
}

std::string at_line(const std::string& path, size_t line) {
  return path + ": line " + std::to_string(line);
}

std::vector<size_t> pick_columns(const std::string& path, const std::vector<std::string>& header,
                                 const CsvSelection& selection, const Row& first_row) {
  std::vector<size_t> picked;
  if (selection.columns.empty()) {
    double ignored = 0;
    for (size_t i = 0; i < header.size(); ++i) {
      if (parse_number(first_row.cells[i], &ignored)) picked.push_back(i);
    }
    if (picked.empty()) {
      throw CsvError(at_line(path, first_row.line) + ": no numeric column (every cell of the "
                     "first data row fails to parse as a number)", first_row.line, "");
    }
    return picked;
  }
  for (const auto& name : selection.columns) {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
      std::string known;
      for (const auto& h : header) known += (known.empty() ? "" : ", ") + h;
      throw CsvError(path + ": no column named '" + name + "' (the header has: " + known + ")", 1,
                     name);
    }
    picked.push_back(static_cast<size_t>(it - header.begin()));
  }
  return picked;
}

}  // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cells.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else if (c != '\r') {
      cells.back() += c;
    }
  }
  for (auto& cell : cells) {  // "OT " and " 1.5" are meant as "OT" and "1.5"
    const auto first = cell.find_first_not_of(" \t");
    const auto last = cell.find_last_not_of(" \t");
    cell = first == std::string::npos ? "" : cell.substr(first, last - first + 1);
  }
  return cells;
}

CsvWindow read_csv_window(const std::string& path, const CsvSelection& selection) {
  std::ifstream file(path);
  if (!file) throw CsvError(path + ": cannot be opened", 0, "");
  std::string line;
  if (!std::getline(file, line) || split_csv_line(line) == std::vector<std::string>{""}) {
    throw CsvError(path + ": empty file (expected a header row naming the columns)", 1, "");
  }
  const std::vector<std::string> header = split_csv_line(line);

  // Only the last `rows` rows are kept, so a large file costs no more memory than its tail.
  std::deque<Row> tail;
  Row first_row{0, {}};
  size_t line_number = 1;
  size_t data_rows = 0;
  while (std::getline(file, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Row row{line_number, split_csv_line(line)};
    if (row.cells.size() != header.size()) {
      throw CsvError(at_line(path, line_number) + " has " + std::to_string(row.cells.size()) +
                         " cells; the header has " + std::to_string(header.size()),
                     line_number, "");
    }
    if (data_rows++ == 0) first_row = row;
    tail.push_back(std::move(row));
    if (selection.rows > 0 && tail.size() > selection.rows) tail.pop_front();
  }
  if (data_rows == 0) throw CsvError(path + ": no data rows after the header", 1, "");
  if (tail.size() < selection.rows) {
    throw CsvError(path + ": has " + std::to_string(tail.size()) + " data rows; " +
                       std::to_string(selection.rows) + " are needed",
                   0, "");
  }

  const std::vector<size_t> picked = pick_columns(path, header, selection, first_row);
  CsvWindow window;
  for (size_t index : picked) window.columns.push_back(header[index]);
  window.values.assign(picked.size(), std::vector<double>(tail.size()));
  for (size_t r = 0; r < tail.size(); ++r) {
    for (size_t c = 0; c < picked.size(); ++c) {
      const std::string& cell = tail[r].cells[picked[c]];
      if (!parse_number(cell, &window.values[c][r])) {
        throw CsvError(at_line(path, tail[r].line) + ", column '" + header[picked[c]] + "': '" +
                           cell + "' is not a finite number",
                       tail[r].line, header[picked[c]]);
      }
    }
  }
  double ignored = 0;
  if (!parse_number(first_row.cells[0], &ignored) &&
      std::find(picked.begin(), picked.end(), 0) == picked.end()) {
    window.label_column = header[0];
    for (const auto& row : tail) window.row_labels.push_back(row.cells[0]);
  }
  return window;
}

}  // namespace tsserve::csv
