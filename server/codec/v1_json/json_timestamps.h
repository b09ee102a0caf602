#pragma once
// Timestamps as the JSON API takes them: Unix seconds, or ISO 8601 text in UTC or with an
// offset ("2016-07-01T00:00:00Z", "2016-07-01 00:00:00", "2016-07-01T02:00:00+02:00"),
// the form a CSV or pandas prints. Whole seconds only: the model's time grid is coarser.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/codec/json/json_reading.h"

namespace tsserve::server {

// Unix seconds of `text`, or false: YYYY-MM-DD, then 'T' or ' ', hh:mm:ss, then nothing
// (UTC), 'Z', or +hh:mm / -hh:mm. Years 1970-9999.
bool parse_iso8601_seconds(std::string_view text, std::int64_t* seconds);

// "YYYY-MM-DDThh:mm:ssZ" for Unix seconds in years 1970-9999 (others clamp to them).
std::string iso8601_utc(std::int64_t seconds);

// A JSON array of timestamps, all Unix seconds or all ISO 8601 text, appended to
// `seconds`; `*text` says which form came. INVALID_ARGUMENT naming the element otherwise.
Status read_json_timestamps(json_od::value& value, const std::string& path,
                            std::vector<std::int64_t>* seconds, bool* text);

}  // namespace tsserve::server
