#include "server/redis/forecast_layout.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

#include "server/redis/byte_codec.h"

namespace tsserve::server {
namespace {

Status corrupt(const char* what) {
  return {StatusCode::kInternal, std::string("kept forecast: ") + what + " is corrupt"};
}

}  // namespace

int64_t ForecastMeta::step_of(int64_t time) const {
  const auto found = std::lower_bound(times.begin(), times.end(), time);
  return found != times.end() && *found == time ? found - times.begin() : -1;
}

ForecastMeta meta_of(const IssuedForecast& forecast, std::string widths_id) {
  ForecastMeta meta;
  meta.model = forecast.model;
  meta.version = forecast.version;
  meta.variable_names = forecast.variable_names;
  meta.scaler_mean = forecast.scaler_mean;
  meta.scaler_std = forecast.scaler_std;
  for (const IntervalBand& band : forecast.bands) meta.levels.push_back(band.level);
  meta.times = forecast.times;
  meta.widths_id = std::move(widths_id);
  return meta;
}

bool widths_of(const IssuedForecast& forecast, std::string* bytes, std::string* id) {
  if (forecast.bands.empty() || forecast.band_widths.size() != forecast.bands.size()) {
    return false;
  }
  bytes->clear();
  for (std::size_t b = 0; b < forecast.bands.size(); ++b) {
    const IntervalBand& band = forecast.bands[b];
    const std::vector<double>& widths = forecast.band_widths[b];
    if (widths.size() != forecast.values.size() || band.lower.size() != widths.size() ||
        band.upper.size() != widths.size()) {
      return false;
    }
    for (std::size_t i = 0; i < widths.size(); ++i) {
      // Bit for bit, or the bounds go in the body.
      const float lower = band_lower(forecast.values[i], widths[i]);
      const float upper = band_upper(forecast.values[i], widths[i]);
      if (std::memcmp(&lower, &band.lower[i], sizeof(float)) != 0 ||
          std::memcmp(&upper, &band.upper[i], sizeof(float)) != 0) {
        return false;
      }
    }
    bytes->append(reinterpret_cast<const char*>(widths.data()), widths.size() * sizeof(double));
  }
  // Two FNV-1a-style 64-bit hashes of the bytes taken 8 at a time (different offset
  // bases; a byte at a time costs 8 times as much, a tenth of a keep): an id no other
  // widths written by a server will share. The bytes are whole doubles, so whole words.
  uint64_t first = 14695981039346656037ULL, second = 1099511628211ULL * 31;
  for (std::size_t at = 0; at + sizeof(uint64_t) <= bytes->size(); at += sizeof(uint64_t)) {
    uint64_t word = 0;
    std::memcpy(&word, bytes->data() + at, sizeof(word));
    first = (first ^ word) * 1099511628211ULL;
    second = (second ^ (word >> 32 | word << 32)) * 0x9E3779B97F4A7C15ULL;
    first ^= first >> 29;
    second ^= second >> 31;
  }
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(first),
                static_cast<unsigned long long>(second));
  *id = hex;
  return true;
}

Status decode_widths(std::string_view bytes, const ForecastMeta& meta, std::vector<double>* widths) {
  const std::size_t count = meta.levels.size() * meta.variables() * meta.times.size();
  if (bytes.size() != count * sizeof(double)) return corrupt("widths");
  widths->resize(count);
  std::memcpy(widths->data(), bytes.data(), bytes.size());
  return Status();
}

std::string encode_meta(const ForecastMeta& meta) {
  std::string out;
  bytes::put_string(&out, meta.model);
  bytes::put_string(&out, meta.version);
  bytes::put<uint32_t>(&out, static_cast<uint32_t>(meta.variable_names.size()));
  for (const std::string& name : meta.variable_names) bytes::put_string(&out, name);
  bytes::put<uint32_t>(&out, static_cast<uint32_t>(meta.scaler_mean.size()));
  for (const double mean : meta.scaler_mean) bytes::put(&out, mean);
  for (const double deviation : meta.scaler_std) bytes::put(&out, deviation);
  bytes::put<uint32_t>(&out, static_cast<uint32_t>(meta.levels.size()));
  for (const double level : meta.levels) bytes::put(&out, level);
  bytes::put<uint32_t>(&out, static_cast<uint32_t>(meta.times.size()));
  for (const int64_t time : meta.times) bytes::put(&out, time);
  bytes::put_string(&out, meta.widths_id);
  return out;
}

Status decode_meta(std::string_view bytes, ForecastMeta* meta) {
  bytes::Reader in(bytes);
  uint32_t names = 0, scalers = 0, levels = 0, times = 0;
  if (!in.get_string(&meta->model) || !in.get_string(&meta->version) || !in.get(&names) ||
      names > in.remaining()) {
    return corrupt("meta");
  }
  meta->variable_names.resize(names);
  for (std::string& name : meta->variable_names) {
    if (!in.get_string(&name)) return corrupt("meta");
  }
  if (!in.get(&scalers) || (scalers != 0 && scalers != names) ||
      !in.get_array(scalers, &meta->scaler_mean) || !in.get_array(scalers, &meta->scaler_std) ||
      !in.get(&levels) || !in.get_array(levels, &meta->levels) || !in.get(&times) ||
      !in.get_array(times, &meta->times) || !in.get_string(&meta->widths_id) || !in.done()) {
    return corrupt("meta");
  }
  if (names == 0 || times == 0 || !std::is_sorted(meta->times.begin(), meta->times.end()) ||
      std::adjacent_find(meta->times.begin(), meta->times.end()) != meta->times.end()) {
    return corrupt("meta (no variables, no times, or times not increasing)");
  }
  return Status();
}

std::size_t entry_bytes(const ForecastMeta& meta) {
  return sizeof(float) * meta.variables() *
         (meta.widths_id.empty() ? 1 + 2 * meta.levels.size() : 1);
}

std::string encode_forecast(const IssuedForecast& forecast, const ForecastMeta& meta) {
  const auto variables = static_cast<std::size_t>(forecast.variables());
  const auto steps = static_cast<std::size_t>(forecast.steps());
  const bool bounds = meta.widths_id.empty();
  std::string out;
  bytes::put_string(&out, encode_meta(meta));
  out.reserve(out.size() + steps * entry_bytes(meta));
  for (std::size_t k = 0; k < steps; ++k) {
    const auto at = [&](std::size_t v) { return v * steps + k; };
    for (std::size_t v = 0; v < variables; ++v) bytes::put(&out, forecast.values[at(v)]);
    if (!bounds) continue;
    for (const IntervalBand& band : forecast.bands) {
      for (std::size_t v = 0; v < variables; ++v) bytes::put(&out, band.lower[at(v)]);
      for (std::size_t v = 0; v < variables; ++v) bytes::put(&out, band.upper[at(v)]);
    }
  }
  return out;
}

Status decode_forecast(std::string_view bytes, ForecastMeta* meta, std::string* body) {
  uint32_t length = 0;
  if (bytes.size() < sizeof(length)) return corrupt("forecast");
  std::memcpy(&length, bytes.data(), sizeof(length));
  bytes.remove_prefix(sizeof(length));
  if (bytes.size() < length) return corrupt("forecast");
  TSSERVE_RETURN_IF_ERROR(decode_meta(bytes.substr(0, length), meta));
  bytes.remove_prefix(length);
  if (bytes.size() / entry_bytes(*meta) != meta->times.size() ||
      bytes.size() % entry_bytes(*meta) != 0) {
    return corrupt("forecast's body (not F entries)");
  }
  body->assign(bytes.data(), bytes.size());
  return Status();
}

Status decode_entry(std::string_view bytes, const ForecastMeta& meta,
                    const std::vector<double>& widths, int64_t k, ForecastEntry* entry) {
  if (bytes.size() != entry_bytes(meta)) return corrupt("entry");
  bytes::Reader in(bytes);
  const std::size_t variables = meta.variables();
  const std::size_t levels = meta.levels.size();
  in.get_array(variables, &entry->values);
  entry->lower.resize(levels * variables);
  entry->upper.resize(levels * variables);
  if (meta.widths_id.empty()) {
    for (std::size_t b = 0; b < levels; ++b) {
      in.get_into(variables, entry->lower.data() + b * variables);
      in.get_into(variables, entry->upper.data() + b * variables);
    }
    return Status();
  }
  const std::size_t steps = meta.times.size();
  if (widths.size() != levels * variables * steps || k < 0 ||
      static_cast<std::size_t>(k) >= steps) {
    return corrupt("entry's widths");
  }
  for (std::size_t b = 0; b < levels; ++b) {
    for (std::size_t v = 0; v < variables; ++v) {
      const double width = widths[(b * variables + v) * steps + static_cast<std::size_t>(k)];
      entry->lower[b * variables + v] = band_lower(entry->values[v], width);
      entry->upper[b * variables + v] = band_upper(entry->values[v], width);
    }
  }
  return Status();
}

}  // namespace tsserve::server
