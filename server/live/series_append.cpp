#include "server/live/series_append.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <sstream>
#include <utility>

namespace tsserve::server {
namespace {

std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// The first names, each cut short (at a UTF-8 character's start): enough to correct a
// call, and a message that stays small whatever a caller named its columns.
std::string name_list(const std::vector<std::string>& names) {
  constexpr std::size_t kShownNames = 12;
  constexpr std::size_t kShownBytes = 64;
  std::string out = "[";
  for (std::size_t i = 0; i < names.size() && i < kShownNames; ++i) {
    std::string name = names[i];
    if (name.size() > kShownBytes) {
      std::size_t cut = kShownBytes;
      while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
      name = name.substr(0, cut) + "...";
    }
    out += (i > 0 ? ", " : "") + quoted(name);
  }
  if (names.size() > kShownNames) out += ", ... (" + std::to_string(names.size()) + " names)";
  return out + "]";
}

std::string float_text(float value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// series_window_bytes for a window of `binding` whose values have `capacity` floats.
std::size_t bytes_of(const std::string& key, const SeriesBinding& binding, std::size_t capacity) {
  std::size_t bytes = kSeriesEntryOverheadBytes + 2 * key.size() + binding.model.size() +
                      binding.pinned_version.size() + capacity * sizeof(float);
  for (const std::string& name : binding.variable_names) bytes += sizeof(std::string) + name.size();
  return bytes;
}

// The float capacity a window gets when an append leaves it `needed` floats, from the
// capacity it has (`now`) and the most it may hold (`most`, keep_points * N). Growing
// doubles, for amortised O(1) per point while a window fills, but never past `most`: so a
// full window takes each new point without reallocating (the old points move down by an
// erase from the front instead, O(window) = 336 x 7 floats for ETTh1, well under the copy
// handed back anyway). A window whose keep_points shrank gives the surplus back.
std::size_t planned_capacity(std::size_t now, std::size_t needed, std::size_t most) {
  if (now > most) return needed;
  if (needed <= now) return now;
  return std::min(most, std::max(needed, 2 * now));
}

// a * b, or SIZE_MAX where that overflows.
std::size_t saturated_product(std::size_t a, std::size_t b) {
  if (a != 0 && b > std::numeric_limits<std::size_t>::max() / a) {
    return std::numeric_limits<std::size_t>::max();
  }
  return a * b;
}

// The timestamps of `append`, after `held`'s last point if the key is held: strictly
// increasing and on one regular step (the key's, or learnt from the first two points the
// key ever sees). *step_seconds receives the step (0 when still unknown).
Status check_timestamps(const std::vector<int64_t>& timestamps, const SeriesWindow* held,
                        int64_t* step_seconds) {
  int64_t step = held != nullptr ? held->step_seconds : 0;
  bool has_previous = held != nullptr;
  int64_t previous = held != nullptr ? held->last_timestamp : 0;
  for (std::size_t i = 0; i < timestamps.size(); ++i) {
    const int64_t time = timestamps[i];
    const std::string field = "timestamps[" + std::to_string(i) + "]: " + std::to_string(time);
    if (!has_previous) {
      has_previous = true;
      previous = time;
      continue;
    }
    if (time <= previous) {
      if (i == 0) {
        return invalid_argument(field + " repeats or precedes the key's last point " +
                                std::to_string(previous));
      }
      return invalid_argument(field + " does not follow timestamps[" + std::to_string(i - 1) +
                              "] = " + std::to_string(previous) +
                              "; timestamps must strictly increase");
    }
    // Unsigned: the difference of two int64 may not fit one, the modular one is exact.
    const uint64_t difference = static_cast<uint64_t>(time) - static_cast<uint64_t>(previous);
    if (step == 0) {
      if (difference > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return invalid_argument(field + " is irregular: " + std::to_string(difference) +
                                " s after " + std::to_string(previous) +
                                " is no step a series can have");
      }
      step = static_cast<int64_t>(difference);
    } else if (difference != static_cast<uint64_t>(step)) {
      const auto expected =
          static_cast<int64_t>(static_cast<uint64_t>(previous) + static_cast<uint64_t>(step));
      const std::string after = "expected " + std::to_string(expected) + ", one step of " +
                                std::to_string(step) + " s after " + std::to_string(previous);
      if (difference % static_cast<uint64_t>(step) == 0) {
        return invalid_argument(field + " leaves a gap (" +
                                std::to_string(difference / static_cast<uint64_t>(step) - 1) +
                                " missing points): " + after +
                                "; gaps are refused: send the missing points");
      }
      return invalid_argument(field + " is irregular: " + after +
                              "; the timestamps must follow the series' regular step");
    }
    previous = time;
  }
  *step_seconds = step;
  return Status();
}

}  // namespace

std::size_t series_window_bytes(const SeriesWindow& window) {
  return bytes_of(window.series_key, window.binding, window.values.capacity());
}

Status check_series_append(const SeriesAppend& append, const SeriesWindow* held,
                           int64_t* step_seconds) {
  const std::string key = quoted(append.series_key);
  if (append.series_key.empty()) return invalid_argument("series_key: empty; expected a key");
  if (append.keep_points < 1) {
    return invalid_argument("keep_points: " + std::to_string(append.keep_points) +
                            "; expected >= 1 (the model's input length)");
  }
  if (append.timestamps.empty()) {
    return invalid_argument("timestamps: none; expected at least 1 point");
  }
  const SeriesBinding& binding = append.binding;
  if (held == nullptr) {
    if (binding.model.empty()) {
      return invalid_argument("model: empty; new key " + key + " must name its model");
    }
    if (binding.variables < 1) {
      return invalid_argument("values: N=" + std::to_string(binding.variables) +
                              " variables; expected N >= 1");
    }
    if (!binding.variable_names.empty() &&
        static_cast<int64_t>(binding.variable_names.size()) != binding.variables) {
      return invalid_argument(std::string(append.variable_names_field) + ": " +
                              std::to_string(binding.variable_names.size()) +
                              " names for N=" + std::to_string(binding.variables) +
                              " variables; expected N names or none");
    }
  } else {
    const SeriesBinding& bound = held->binding;
    if (binding.model != bound.model) {
      return invalid_argument("model: " + quoted(binding.model) + ", but key " + key +
                              " follows model " + quoted(bound.model) +
                              " (a key keeps the model of its first call)");
    }
    if (!binding.pinned_version.empty() && binding.pinned_version != bound.pinned_version) {
      return invalid_argument("model_version: " + quoted(binding.pinned_version) + ", but key " +
                              key +
                              (bound.pinned_version.empty()
                                   ? " follows the default version of model " + quoted(bound.model)
                                   : " is pinned to version " + quoted(bound.pinned_version)) +
                              " (a key keeps the version of its first call)");
    }
    if (!binding.variable_names.empty() && binding.variable_names != bound.variable_names) {
      return invalid_argument(
          std::string(append.variable_names_field) + ": " + name_list(binding.variable_names) +
          ", but key " + key +
          (bound.variable_names.empty()
               ? " holds its variables by index (its first call named none): send no names"
               : " holds " + name_list(bound.variable_names) +
                     ": send those, in that order, or none"));
    }
    if (binding.variables != bound.variables) {
      return invalid_argument("values: N=" + std::to_string(binding.variables) + " but key " + key +
                              " holds N=" + std::to_string(bound.variables) + " variables");
    }
  }
  const auto variables = static_cast<std::size_t>(binding.variables);
  const std::size_t steps = append.timestamps.size();
  if (append.values.size() % variables != 0 || append.values.size() / variables != steps) {
    return invalid_argument("values: " + std::to_string(append.values.size()) +
                            " floats; expected T x N = " + std::to_string(steps) + " x " +
                            std::to_string(variables));
  }
  for (std::size_t i = 0; i < append.values.size(); ++i) {
    if (!std::isfinite(append.values[i])) {
      return invalid_argument(
          "values[" + std::to_string(i) + "] (t=" + std::to_string(i / variables) +
          ", n=" + std::to_string(i % variables) + "): " + float_text(append.values[i]) +
          "; every value must be finite (the store holds no missing values)");
    }
  }
  return check_timestamps(append.timestamps, held, step_seconds);
}

SeriesAppendPlan plan_series_append(const SeriesAppend& append, const SeriesWindow* held,
                                    std::size_t max_bytes) {
  SeriesAppendPlan plan;
  const auto variables = static_cast<std::size_t>(append.binding.variables);
  const auto keep = static_cast<std::size_t>(append.keep_points);
  const std::size_t steps = append.timestamps.size();
  plan.held_points = held != nullptr ? held->values.size() / variables : 0;
  plan.new_kept = std::min(steps, keep);  // of the appended points
  plan.old_kept = std::min(plan.held_points, keep - plan.new_kept);
  plan.capacity =
      planned_capacity(held != nullptr ? held->values.capacity() : 0,
                       (plan.old_kept + plan.new_kept) * variables, saturated_product(keep, variables));
  const SeriesBinding& binding = held != nullptr ? held->binding : append.binding;
  const std::size_t window_bytes = bytes_of(append.series_key, binding, plan.capacity);
  if (window_bytes > max_bytes) {
    plan.status = {StatusCode::kResourceExhausted,
                   "values: key " + quoted(append.series_key) + "'s window of " +
                       std::to_string(plan.old_kept + plan.new_kept) + " points x " +
                       std::to_string(variables) + " variables takes " +
                       std::to_string(window_bytes) + " bytes, over the store's max_bytes of " +
                       std::to_string(max_bytes)};
  }
  return plan;
}

void apply_series_append(const SeriesAppend& append, const SeriesAppendPlan& plan,
                         int64_t step_seconds, SeriesWindow* window) {
  const auto variables = static_cast<std::size_t>(append.binding.variables);
  std::vector<float>& values = window->values;
  values.erase(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(
                                                    (plan.held_points - plan.old_kept) * variables));
  if (plan.capacity != values.capacity()) {
    std::vector<float> resized;
    resized.reserve(plan.capacity);
    resized.assign(values.begin(), values.end());
    values.swap(resized);
  }
  values.insert(values.end(),
                append.values.end() - static_cast<std::ptrdiff_t>(plan.new_kept * variables),
                append.values.end());
  window->step_seconds = step_seconds;
  window->last_timestamp = append.timestamps.back();
  window->accepted_total += static_cast<int64_t>(append.timestamps.size());
}

}  // namespace tsserve::server
