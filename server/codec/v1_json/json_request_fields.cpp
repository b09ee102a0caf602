#include "server/codec/v1_json/json_request_fields.h"

#include "server/codec/json/json_numbers.h"

namespace tsserve::server {

Status read_json_levels(json_od::value& value, const std::string& path,
                        std::vector<double>* levels) {
  return for_each_json_element(
      value, path, "an array of levels such as [0.8, 0.95]",
      [&](json_od::value& item, const JsonElementPath& at) -> Status {
        double level = 0;
        if (parse_json_double(item.raw_json_token(), &level) != JsonNumberError::kNone) {
          return invalid_argument(at.text() + ": expected a level in (0, 1)");
        }
        levels->push_back(level);
        return Status();
      });
}

Status read_json_scaler_mode(json_od::value& value, const std::string& path, ScalerMode* mode) {
  std::string text;
  TSSERVE_RETURN_IF_ERROR(read_json_string(value, path, &text));
  if (text == "auto") {
    *mode = ScalerMode::kAuto;
  } else if (text == "required") {
    *mode = ScalerMode::kRequired;
  } else if (text == "none") {
    *mode = ScalerMode::kNone;
  } else {
    return invalid_argument(path + ": \"" + text +
                            "\"; expected \"auto\", \"required\" or \"none\"");
  }
  return Status();
}

}  // namespace tsserve::server
