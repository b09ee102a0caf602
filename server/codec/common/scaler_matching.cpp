#include "server/codec/common/scaler_matching.h"

#include <numeric>
#include <string_view>
#include <unordered_map>

namespace tsserve::server {
namespace {

// "\"HUFL\", \"HULL\", ... (7 columns)": enough to correct a name, bounded in length.
std::string describe_columns(const std::vector<std::string>& columns) {
  constexpr std::size_t kShown = 12;
  std::string text;
  for (std::size_t i = 0; i < columns.size() && i < kShown; ++i) {
    if (i > 0) text += ", ";
    text += '"' + columns[i] + '"';
  }
  if (columns.size() > kShown) text += ", ...";
  return text + " (" + std::to_string(columns.size()) + " columns)";
}

// Stores each name's column and returns -1, or returns the index of the first name that
// is not a column.
int64_t match_by_name(NameList names, const std::vector<std::string>& columns,
                      std::vector<int32_t>* column) {
  std::unordered_map<std::string_view, int32_t> index;
  index.reserve(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    index.emplace(columns[c], static_cast<int32_t>(c));
  }
  column->resize(static_cast<std::size_t>(names.size()));
  for (int n = 0; n < names.size(); ++n) {
    const auto it = index.find(names[n]);
    if (it == index.end()) return n;
    (*column)[static_cast<std::size_t>(n)] = it->second;
  }
  return -1;
}

}  // namespace

Status match_scaler(ScalerMode scaler_mode, NameList variable_names, int64_t variables,
                    const ModelShape& model, ScalerMatch* out, const ScalerFields& fields) {
  out->applied = false;
  out->column.clear();
  if (scaler_mode == ScalerMode::kNone) return Status();
  const bool required = scaler_mode == ScalerMode::kRequired;
  if (!model.has_scaler()) {
    if (!required) return Status();
    return {StatusCode::kFailedPrecondition, std::string(fields.scaler_mode) + ": " +
                                                 fields.required + ", but model \"" + model.name +
                                                 "\" has no dataset scaler; send " + fields.none +
                                                 " or leave it unspecified"};
  }
  const std::vector<std::string>& columns = model.scaler_columns;
  if (!variable_names.empty()) {
    const int64_t unknown = match_by_name(variable_names, columns, &out->column);
    if (unknown < 0) {
      out->applied = true;
      return Status();
    }
    out->column.clear();
    if (!required) return Status();
    return {StatusCode::kInvalidArgument,
            std::string(fields.variable_names) + ": \"" + variable_names[unknown] +
                "\" (variable " + std::to_string(unknown) +
                ") is not a column of the model's scaler; " + fields.required +
                " needs every name to be one of " + describe_columns(columns)};
  }
  if (variables == static_cast<int64_t>(columns.size())) {
    out->column.resize(columns.size());
    std::iota(out->column.begin(), out->column.end(), 0);
    out->applied = true;
    return Status();
  }
  if (!required) return Status();
  return {StatusCode::kInvalidArgument,
          std::string(fields.series) + ": " + std::to_string(variables) +
              " unnamed variables, but the model's scaler has " + std::to_string(columns.size()) +
              " columns; " + fields.required + " needs " + fields.variable_names +
              " from its columns or exactly " + std::to_string(columns.size()) +
              " variables in column order"};
}

}  // namespace tsserve::server
