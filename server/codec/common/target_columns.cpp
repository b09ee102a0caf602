#include "server/codec/common/target_columns.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tsserve::server {
namespace {

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// "HUFL, HULL, ... and the target OT".
std::string described(const std::vector<std::string>& columns) {
  std::string text;
  for (std::size_t i = 0; i + 1 < columns.size(); ++i) text += (i ? ", " : "") + columns[i];
  return text + (columns.size() > 1 ? " and " : "") + "the target " + columns.back();
}

// The column order the model reads: index into request->columns for each position.
Status model_order(const std::optional<std::string>& target, const ModelShape& model,
                   const PlainForecastRequest& request, const TargetFields& fields,
                   std::vector<std::size_t>* order) {
  const std::vector<std::string>& columns = request.columns;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t n = 0; n < columns.size(); ++n) index.emplace(columns[n], n);
  const std::string what = model.family + " (features " + model.features + ")";
  if (!model.has_scaler()) {
    for (std::size_t n = 0; n < columns.size(); ++n) order->push_back(n);
    if (!target) return Status();
    const auto found = index.find(*target);
    if (found == index.end()) {
      return invalid_argument(std::string(fields.target) + ": " + quoted(*target) +
                              " is not a column of " + fields.series);
    }
    order->erase(order->begin() + static_cast<std::ptrdiff_t>(found->second));
    order->push_back(found->second);
    return Status();
  }
  const std::vector<std::string>& trained = model.scaler_columns;
  if (target && *target != trained.back()) {
    return invalid_argument(std::string(fields.target) + ": " + quoted(*target) + "; this " + what +
                            " was trained to forecast " + quoted(trained.back()) +
                            ", the last of its columns, and forecasts no other");
  }
  for (const std::string& column : trained) {
    const auto found = index.find(column);
    if (found == index.end()) {
      const bool is_target = column == trained.back();
      return invalid_argument(std::string(fields.series) + ": " +
                              (is_target ? "the target " : "the covariate ") + quoted(column) +
                              " is missing; this " + what + " reads " + described(trained));
    }
    order->push_back(found->second);
  }
  for (const std::string& column : columns) {
    if (std::find(trained.begin(), trained.end(), column) == trained.end()) {
      return invalid_argument(std::string(fields.series) + ": " + quoted(column) +
                              " is not a column of this " + what + ", which reads " +
                              described(trained));
    }
  }
  return Status();
}

}  // namespace

Status arrange_target_columns(const std::optional<std::string>& target, const ModelShape& model,
                              PlainForecastRequest* request, std::vector<int32_t>* request_index,
                              const TargetFields& fields) {
  if (request_index != nullptr) request_index->clear();
  if (model.forecast_variables <= 0) {
    if (!target) return Status();
    return invalid_argument(std::string(fields.target) + ": this " + model.family +
                            " forecasts every variable it is sent (features " + model.features +
                            "); send no target");
  }
  if (request->columns.empty()) {
    if (!target) return Status();
    return invalid_argument(std::string(fields.target) + ": the columns have no names to find " +
                            quoted(*target) + " among");
  }
  std::vector<std::size_t> order;
  TSSERVE_RETURN_IF_ERROR(model_order(target, model, *request, fields, &order));
  bool moved = false;
  for (std::size_t i = 0; i < order.size(); ++i) moved = moved || order[i] != i;
  if (!moved) return Status();
  const auto points = static_cast<std::size_t>(request->shape[1]);
  std::vector<std::string> columns;
  std::vector<float> values;
  values.reserve(request->values.size());
  std::vector<int32_t> position(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    columns.push_back(std::move(request->columns[order[i]]));
    const auto first = request->values.begin() + static_cast<std::ptrdiff_t>(order[i] * points);
    values.insert(values.end(), first, first + static_cast<std::ptrdiff_t>(points));
    position[order[i]] = static_cast<int32_t>(i);
  }
  request->columns = std::move(columns);
  request->values = std::move(values);
  for (int32_t& variable : request->attention.variables) {
    if (variable >= 0 && static_cast<std::size_t>(variable) < position.size()) {
      variable = position[static_cast<std::size_t>(variable)];
    }
  }
  if (request_index != nullptr) {
    for (std::size_t index : order) request_index->push_back(static_cast<int32_t>(index));
  }
  return Status();
}

}  // namespace tsserve::server
