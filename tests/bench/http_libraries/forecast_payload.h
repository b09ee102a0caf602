#pragma once
// The work every candidate server does per request, identical across libraries so that
// only the HTTP layer differs: parse a small JSON forecast request (7 series of 336
// float32, the bundled model's window) and write a 7 x 96 answer, as the real endpoint
// will. The "forecast" is each series' mean repeated: the model is not what is measured.

#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace http_bench {

// When HTTP_BENCH_NO_JSON is set, the answer is a fixed 7 x 96 forecast and the body is
// not parsed: the HTTP layer alone.
inline bool json_off() {
  static const bool off = std::getenv("HTTP_BENCH_NO_JSON") != nullptr;
  return off;
}

inline std::string forecast_answer(std::string_view body) {
  if (json_off()) {
    static const std::string fixed = [] {
      std::string out = R"({"forecast":{)";
      for (int v = 0; v < 7; ++v) {
        out += std::string(v ? "," : "") + "\"V" + std::to_string(v) + "\":[";
        for (int t = 0; t < 96; ++t) out += t ? ",12.345678" : "12.345678";
        out += "]";
      }
      return out + "}}";
    }();
    return fixed + std::string(body.substr(0, 0));
  }
  const nlohmann::json request = nlohmann::json::parse(body);
  const auto& series = request.at("series");
  std::string out = R"({"forecast":{)";
  bool first_column = true;
  char number[32];
  for (const auto& [name, values] : series.items()) {
    double sum = 0;
    for (const auto& v : values) sum += v.get<double>();
    const float mean = static_cast<float>(sum / static_cast<double>(values.size()));
    if (!first_column) out += ',';
    first_column = false;
    out += '"';
    out += name;
    out += "\":[";
    for (int t = 0; t < 96; ++t) {
      if (t) out += ',';
      const auto end = std::to_chars(number, number + sizeof number, mean).ptr;
      out.append(number, end);
    }
    out += ']';
  }
  out += "}}";
  return out;
}

}  // namespace http_bench
