#include "server/redis/forecast_entries.h"

#include <algorithm>

#include "server/redis/byte_codec.h"

namespace tsserve::server {
namespace {

using bytes::put;
using bytes::put_string;
using bytes::Reader;

Status corrupt(const char* what) {
  return {StatusCode::kInternal, std::string("kept forecast: ") + what + " is corrupt"};
}

}  // namespace

ForecastMeta meta_of(const IssuedForecast& forecast) {
  ForecastMeta meta;
  meta.model = forecast.model;
  meta.version = forecast.version;
  meta.variable_names = forecast.variable_names;
  meta.scaler_mean = forecast.scaler_mean;
  meta.scaler_std = forecast.scaler_std;
  for (const IntervalBand& band : forecast.bands) meta.levels.push_back(band.level);
  return meta;
}

std::string encode_meta(const ForecastMeta& meta) {
  std::string out;
  put_string(&out, meta.model);
  put_string(&out, meta.version);
  put<uint32_t>(&out, static_cast<uint32_t>(meta.variable_names.size()));
  for (const std::string& name : meta.variable_names) put_string(&out, name);
  put<uint32_t>(&out, static_cast<uint32_t>(meta.scaler_mean.size()));
  for (const double mean : meta.scaler_mean) put(&out, mean);
  for (const double deviation : meta.scaler_std) put(&out, deviation);
  put<uint32_t>(&out, static_cast<uint32_t>(meta.levels.size()));
  for (const double level : meta.levels) put(&out, level);
  return out;
}

Status decode_meta(std::string_view bytes, ForecastMeta* meta) {
  Reader in(bytes);
  uint32_t names = 0, scalers = 0, levels = 0;
  if (!in.get_string(&meta->model) || !in.get_string(&meta->version) || !in.get(&names)) {
    return corrupt("meta");
  }
  meta->variable_names.resize(names > bytes.size() ? 0 : names);
  if (names > bytes.size()) return corrupt("meta");
  for (std::string& name : meta->variable_names) {
    if (!in.get_string(&name)) return corrupt("meta");
  }
  if (!in.get(&scalers) || (scalers != 0 && scalers != names) ||
      !in.get_array(scalers, &meta->scaler_mean) || !in.get_array(scalers, &meta->scaler_std) ||
      !in.get(&levels) || !in.get_array(levels, &meta->levels) || !in.done()) {
    return corrupt("meta");
  }
  return Status();
}

std::string encode_entry(const IssuedForecast& forecast, uint64_t id, int64_t k) {
  const auto variables = static_cast<std::size_t>(forecast.variables());
  const auto steps = static_cast<std::size_t>(forecast.steps());
  const auto at = [&](std::size_t v) { return v * steps + static_cast<std::size_t>(k); };
  std::string out;
  out.reserve(24 + 4 * variables * (1 + 2 * forecast.bands.size()));
  put<uint64_t>(&out, id);
  put<int64_t>(&out, k);
  put<uint32_t>(&out, static_cast<uint32_t>(variables));
  put<uint32_t>(&out, static_cast<uint32_t>(forecast.bands.size()));
  for (std::size_t v = 0; v < variables; ++v) put(&out, forecast.values[at(v)]);
  for (const IntervalBand& band : forecast.bands) {
    for (std::size_t v = 0; v < variables; ++v) put(&out, band.lower[at(v)]);
    for (std::size_t v = 0; v < variables; ++v) put(&out, band.upper[at(v)]);
  }
  return out;
}

Status decode_entries(std::string_view bytes, std::vector<ForecastEntry>* entries) {
  entries->clear();
  Reader in(bytes);
  while (!in.done()) {
    ForecastEntry entry;
    uint32_t variables = 0, bands = 0;
    if (!in.get(&entry.id) || !in.get(&entry.step) || !in.get(&variables) || !in.get(&bands) ||
        bands > bytes.size() || !in.get_array(variables, &entry.values)) {
      return corrupt("entry");
    }
    // bands <= bytes.size() and variables < 2^32: the product cannot overflow 64 bits,
    // and it is checked against what remains before anything is allocated for it.
    const std::size_t bounds = static_cast<std::size_t>(bands) * variables;
    if (in.remaining() / (2 * sizeof(float)) < bounds) return corrupt("entry");
    entry.lower.resize(bounds);
    entry.upper.resize(bounds);
    for (uint32_t b = 0; b < bands; ++b) {
      if (!in.get_into(variables, entry.lower.data() + b * variables) ||
          !in.get_into(variables, entry.upper.data() + b * variables)) {
        return corrupt("entry");
      }
    }
    entries->push_back(std::move(entry));
  }
  return Status();
}

}  // namespace tsserve::server
