#pragma once
// TSLib's time marks (x_mark) for the encoder-decoder families (Informer, Transformer), from
// Unix seconds (UTC), in plain C++ (no LibTorch), so the server's codecs compute them.
//
// By `embed` (TSLib's embed and its data loader's timeenc):
//   "timeF" (timeenc=1): the time features of `freq` (time_features.h: "h" gives HourOfDay,
//     DayOfWeek, DayOfMonth, DayOfYear), each computed in double and rounded to float once.
//   "fixed" / "learned" (timeenc=0): calendar fields as whole-number floats, in TSLib's
//     column order month (1-12), day (1-31), weekday (Monday = 0), hour (0-23), and, for a
//     minute frequency ("t", "min", "15min"), minute // 15 (0-3). The model looks each column
//     up in a table; seconds have none, so a second frequency is refused with these.
// Layout: step-major [T, C], marks[t * C + c] is column c of step t (TSLib's data_stamp and
// the model's x_mark). The server passes the marks of every input step, then of every future
// step: [seq_len + pred_len, C] per sample.

#include <cstdint>
#include <string>
#include <vector>

namespace tsserve::model {

// "" when (embed, freq) is an encoding the encoder-decoder families can read, else a message
// naming 'embed' and/or 'freq' and what is accepted.
std::string mark_encoding_error(const std::string& embed, const std::string& freq);

// True for a minute frequency: a fixed/learned TemporalEmbedding then has a minute table.
// (TSLib builds that table only for the exact string "t"; see temporal_embedding.h.)
bool has_minute_table(const std::string& freq);

// C, the columns of the marks for (embed, freq). Throws ModelError with
// mark_encoding_error's message.
int64_t mark_width(const std::string& embed, const std::string& freq);

// The columns' names: the time features' ("HourOfDay", ...) for timeF, else "month", "day",
// "weekday", "hour"(, "minute").
std::vector<std::string> mark_names(const std::string& embed, const std::string& freq);

// The marks of `unix_seconds`, [T, C] step-major (see above). Any order of timestamps is
// computed; callers check their count and order (time_features.h's timestamps_error).
// Throws ModelError for an encoding mark_encoding_error refuses.
std::vector<float> time_marks(const std::string& embed, const std::string& freq,
                              const std::vector<int64_t>& unix_seconds);

}  // namespace tsserve::model
