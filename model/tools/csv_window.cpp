#include "csv_window.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <sstream>

namespace tsserve::tools {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream stream(line);
  std::string cell;
  while (std::getline(stream, cell, ',')) {
    if (!cell.empty() && cell.back() == '\r') cell.pop_back();
    cells.push_back(cell);
  }
  return cells;
}

}  // namespace

CsvWindow read_csv_window(const std::string& path, const std::vector<std::string>& columns,
                          size_t rows) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot be opened");
  std::string line;
  if (!std::getline(file, line)) throw std::runtime_error(path + ": empty file (no header row)");
  const std::vector<std::string> header = split(line);

  CsvWindow window;
  std::vector<size_t> picked;
  if (columns.empty()) {
    for (size_t i = 1; i < header.size(); ++i) picked.push_back(i);
  } else {
    for (const auto& name : columns) {
      auto it = std::find(header.begin(), header.end(), name);
      if (it == header.end()) throw std::runtime_error(path + ": no column named '" + name + "'");
      picked.push_back(static_cast<size_t>(it - header.begin()));
    }
  }
  for (size_t index : picked) window.columns.push_back(header[index]);

  std::deque<std::vector<std::string>> tail;
  size_t line_number = 1;
  while (std::getline(file, line)) {
    ++line_number;
    if (line.empty() || line == "\r") continue;
    std::vector<std::string> cells = split(line);
    if (cells.size() != header.size()) {
      throw std::runtime_error(path + ": line " + std::to_string(line_number) + " has " +
                               std::to_string(cells.size()) + " cells; the header has " +
                               std::to_string(header.size()));
    }
    cells.push_back(std::to_string(line_number));
    tail.push_back(std::move(cells));
    if (tail.size() > rows) tail.pop_front();
  }
  if (tail.size() < rows) {
    throw std::runtime_error(path + ": has " + std::to_string(tail.size()) +
                             " data rows; the model needs " + std::to_string(rows));
  }

  window.values.assign(picked.size(), std::vector<double>(rows));
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < picked.size(); ++c) {
      const std::string& cell = tail[r][picked[c]];
      size_t used = 0;
      double value = 0;
      try {
        value = std::stod(cell, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != cell.size()) {
        throw std::runtime_error(path + ": line " + tail[r].back() + ", column '" +
                                 header[picked[c]] + "': '" + cell + "' is not a number");
      }
      window.values[c][r] = value;
    }
  }
  window.last_timestamp = tail.back().front();
  return window;
}

}  // namespace tsserve::tools
