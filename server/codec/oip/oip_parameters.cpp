#include "server/codec/oip/oip_parameters.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace tsserve::server {
namespace {

using Parameter = inference::InferParameter;

constexpr const char* kKnown =
    "scaler_mode, variable_names, attention_layers, attention_variables, "
    "attention_average_heads, interval_levels";

Status invalid_argument(const std::string& name, const std::string& message) {
  return {StatusCode::kInvalidArgument, "parameters[\"" + name + "\"]: " + message};
}

const char* kind_of(const Parameter& value) {
  switch (value.parameter_choice_case()) {
    case Parameter::kBoolParam:
      return "bool_param";
    case Parameter::kInt64Param:
      return "int64_param";
    case Parameter::kStringParam:
      return "string_param";
    case Parameter::PARAMETER_CHOICE_NOT_SET:
      break;
  }
  return "no value";
}

Status wrong_kind(const std::string& name, const Parameter& value, const char* expected) {
  return invalid_argument(name, std::string("got ") + kind_of(value) + "; expected " + expected);
}

// "a,b,c" -> {"a", "b", "c"}; spaces around items are dropped.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto first = item.find_first_not_of(' ');
    const auto last = item.find_last_not_of(' ');
    items.push_back(first == std::string::npos ? std::string()
                                               : item.substr(first, last - first + 1));
    if (comma == std::string::npos) return items;
    start = comma + 1;
  }
}

// An int64 or a string of comma-separated integers; range checks come later, against the
// model (resolve_forecast_attention).
Status parse_indices(const std::string& name, const Parameter& value, std::vector<int32_t>* out) {
  if (value.parameter_choice_case() == Parameter::kInt64Param) {
    const int64_t index = value.int64_param();
    if (index < INT32_MIN || index > INT32_MAX) {
      return invalid_argument(name, std::to_string(index) + " is not an index");
    }
    out->push_back(static_cast<int32_t>(index));
    return Status();
  }
  if (value.parameter_choice_case() != Parameter::kStringParam) {
    return wrong_kind(name, value, "a string of comma-separated indices (\"0,2\") or int64_param");
  }
  for (const std::string& item : split_list(value.string_param())) {
    char* end = nullptr;
    errno = 0;
    const long long index = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || index < INT32_MIN || index > INT32_MAX) {
      return invalid_argument(name,
                              "\"" + value.string_param() +
                                  "\" is not a list of comma-separated indices, e.g. \"0,2\"");
    }
    out->push_back(static_cast<int32_t>(index));
  }
  return Status();
}

Status parse_scaler_mode(const std::string& name, const Parameter& value, ScalerMode* out) {
  if (value.parameter_choice_case() != Parameter::kStringParam) {
    return wrong_kind(name, value, "string_param \"auto\", \"none\" or \"required\"");
  }
  const std::string& mode = value.string_param();
  if (mode == "auto") {
    *out = ScalerMode::kAuto;
  } else if (mode == "none") {
    *out = ScalerMode::kNone;
  } else if (mode == "required") {
    *out = ScalerMode::kRequired;
  } else {
    return invalid_argument(name, "\"" + mode + "\"; expected \"auto\", \"none\" or \"required\"");
  }
  return Status();
}

Status parse_one(const std::string& name, const Parameter& value, OipOptions* out) {
  if (name == "scaler_mode") return parse_scaler_mode(name, value, &out->scaler_mode);
  if (name == "variable_names") {
    if (value.parameter_choice_case() != Parameter::kStringParam) {
      return wrong_kind(name, value, "string_param of comma-separated names");
    }
    for (std::string& item : split_list(value.string_param())) {
      if (item.empty()) {
        return invalid_argument(name, "\"" + value.string_param() + "\" has an empty name");
      }
      out->variable_names.Add(std::move(item));
    }
    return Status();
  }
  if (name == "attention_layers") {
    return parse_indices(name, value, &out->attention.layers);
  }
  if (name == "attention_variables") {
    return parse_indices(name, value, &out->attention.variables);
  }
  if (name == "attention_average_heads") {
    if (value.parameter_choice_case() != Parameter::kBoolParam) {
      return wrong_kind(name, value, "bool_param");
    }
    out->attention.average_heads = value.bool_param();
    return Status();
  }
  if (name == "interval_levels") {
    if (value.parameter_choice_case() != Parameter::kStringParam) {
      return wrong_kind(name, value, "string_param of comma-separated levels (\"0.8,0.95\")");
    }
    for (const std::string& item : split_list(value.string_param())) {
      char* end = nullptr;
      const double level = std::strtod(item.c_str(), &end);
      if (item.empty() || *end != '\0') {
        return invalid_argument(
            name, "\"" + value.string_param() +
                      "\" is not a list of comma-separated levels, e.g. \"0.8,0.95\"");
      }
      out->interval_levels.push_back(level);
    }
    return Status();
  }
  return invalid_argument(name, std::string("unknown parameter; tsserve reads ") + kKnown);
}

}  // namespace

Status resolve_oip_parameters(
    const google::protobuf::Map<std::string, inference::InferParameter>& parameters,
    OipOptions* out) {
  *out = OipOptions{};
  // In name order, so the parameter an error names does not depend on the map's order.
  std::vector<const std::string*> names;
  names.reserve(parameters.size());
  for (const auto& entry : parameters) names.push_back(&entry.first);
  std::sort(names.begin(), names.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  for (const std::string* name : names) {
    TSSERVE_RETURN_IF_ERROR(parse_one(*name, parameters.at(*name), out));
  }
  return Status();
}

}  // namespace tsserve::server
