#include "tsserve/model/time_marks.h"

#include <cctype>

#include "tsserve/model/model_error.h"
#include "tsserve/model/time_features.h"

namespace tsserve::model {
namespace {

// "15min" -> "min": a multiple reads the marks of its unit, as for the time features.
std::string unit_of_freq(const std::string& freq) {
  size_t i = 0;
  while (i < freq.size() && std::isdigit(static_cast<unsigned char>(freq[i]))) ++i;
  return freq.substr(i);
}

bool is_table_encoding(const std::string& embed) { return embed == "fixed" || embed == "learned"; }

}  // namespace

std::string mark_encoding_error(const std::string& embed, const std::string& freq) {
  if (embed != "timeF" && !is_table_encoding(embed)) {
    return "'embed' must be one of \"timeF\", \"fixed\", \"learned\" (TSLib's time encodings), "
           "got \"" +
           embed + "\"";
  }
  std::vector<TimeFeature> features;
  try {
    features = time_features_for_freq(freq);
  } catch (const ModelError& e) {
    return e.what();
  }
  if (embed == "timeF" && features.empty()) {
    return "'embed' \"timeF\" with 'freq' \"" + freq +
           "\" has no time features to embed (TSLib's Linear would read none); use a finer "
           "'freq' or 'embed' \"fixed\"";
  }
  if (is_table_encoding(embed) && unit_of_freq(freq) == "s") {
    return "'embed' \"" + embed +
           "\" looks marks up in month, day, weekday, hour and minute tables (TSLib's "
           "TemporalEmbedding), none for seconds: with it 'freq' must be \"t\"/\"min\", \"h\", "
           "\"d\", \"b\", \"w\", \"m\", \"q\" or \"a\" (optionally with a multiple), got \"" +
           freq + "\"; use 'embed' \"timeF\" for second data";
  }
  return "";
}

bool has_minute_table(const std::string& freq) {
  const std::string unit = unit_of_freq(freq);
  return unit == "t" || unit == "min";
}

int64_t mark_width(const std::string& embed, const std::string& freq) {
  const std::string error = mark_encoding_error(embed, freq);
  if (!error.empty()) throw ModelError(error);
  if (embed == "timeF") return static_cast<int64_t>(time_features_for_freq(freq).size());
  return has_minute_table(freq) ? 5 : 4;
}

std::vector<std::string> mark_names(const std::string& embed, const std::string& freq) {
  const int64_t width = mark_width(embed, freq);
  std::vector<std::string> names;
  if (embed == "timeF") {
    for (TimeFeature feature : time_features_for_freq(freq)) {
      names.push_back(time_feature_name(feature));
    }
    return names;
  }
  names = {"month", "day", "weekday", "hour", "minute"};
  names.resize(static_cast<size_t>(width));
  return names;
}

std::vector<float> time_marks(const std::string& embed, const std::string& freq,
                              const std::vector<int64_t>& unix_seconds) {
  const int64_t width = mark_width(embed, freq);
  std::vector<float> marks;
  marks.reserve(unix_seconds.size() * static_cast<size_t>(width));
  if (embed == "timeF") {
    const std::vector<TimeFeature> features = time_features_for_freq(freq);
    for (int64_t t : unix_seconds) {
      for (TimeFeature feature : features) {
        marks.push_back(static_cast<float>(time_feature_value(feature, t)));
      }
    }
    return marks;
  }
  for (int64_t t : unix_seconds) {
    const CalendarFields fields = calendar_fields(t);
    marks.insert(marks.end(),
                 {static_cast<float>(fields.month), static_cast<float>(fields.day),
                  static_cast<float>(fields.weekday), static_cast<float>(fields.hour)});
    if (width == 5) marks.push_back(static_cast<float>(fields.minute / 15));
  }
  return marks;
}

}  // namespace tsserve::model
