#include "server/redis/forecast_entries.h"

#include <algorithm>
#include <cstring>

namespace tsserve::server {
namespace {

template <typename T>
void put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian hosts only (x86-64, aarch64)
  out->append(bytes, sizeof(T));
}

void put_string(std::string* out, const std::string& text) {
  put<uint32_t>(out, static_cast<uint32_t>(text.size()));
  out->append(text);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  bool get(T* value) {
    if (bytes_.size() - at_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool get_string(std::string* text) {
    uint32_t size = 0;
    if (!get(&size) || bytes_.size() - at_ < size) return false;
    text->assign(bytes_.data() + at_, size);
    at_ += size;
    return true;
  }
  template <typename T>
  bool get_array(std::size_t count, std::vector<T>* values) {
    if ((bytes_.size() - at_) / sizeof(T) < count) return false;
    values->resize(count);
    std::memcpy(values->data(), bytes_.data() + at_, count * sizeof(T));
    at_ += count * sizeof(T);
    return true;
  }
  // count floats into `out`, which has room for them.
  bool get_into(std::size_t count, float* out) {
    if ((bytes_.size() - at_) / sizeof(float) < count) return false;
    std::memcpy(out, bytes_.data() + at_, count * sizeof(float));
    at_ += count * sizeof(float);
    return true;
  }
  std::size_t at() const { return at_; }
  std::size_t remaining() const { return bytes_.size() - at_; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

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
