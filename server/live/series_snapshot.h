#pragma once
// The live series' on-disk form (series_store.h's snapshot() written at shutdown and
// periodically, read back by restore() at start), so that a restart keeps every key's
// window and its callers need not resend what they already sent.
//
// Layout, version 1; integers little-endian, strings a u32 byte length then the bytes:
//
//   magic           8 bytes "TSSERIES"
//   format_version  u32     1
//   window_count    u64
//   window_count times, least recently used first:
//     series_key      string
//     model           string
//     pinned_version  string  ("" = the model's default version)
//     name_count      u32     0 or N
//     names           name_count strings
//     variables       i64     N >= 1
//     step_seconds    i64     >= 0; > 0 when points >= 2
//     last_timestamp  i64
//     accepted_total  i64     >= points
//     points          i64     >= 1
//     value_count     u64     points * N
//     values          value_count float32 (IEEE-754 bits, little-endian), time-major
//   checksum        u64     FNV-1a 64 of every byte before it
//
// The checksum catches a truncated or corrupted file; the decoder also checks every
// window's invariants (those SeriesStore keeps), so whatever it accepts is a state the
// store could have reached, and re-encoding it gives the same bytes back.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "server/live/series_window.h"
#include "server/status/status.h"

namespace tsserve::server {

inline constexpr uint32_t kSeriesSnapshotFormatVersion = 1;

// The file's bytes for `windows`. REQUIRES: windows as the store holds them (strings under
// 4 GiB, names 0 or N, values points * N).
std::string encode_series_snapshot(const std::vector<SeriesWindow>& windows);

// Reads a file encode_series_snapshot wrote. On error (FAILED_PRECONDITION, saying what is
// wrong and at which byte or window) *out is left empty. Any input is safe: every length
// is checked against the bytes that remain before anything is allocated for it.
Status decode_series_snapshot(std::string_view bytes, std::vector<SeriesWindow>* out);

// FNV-1a 64 of `bytes`: the trailing checksum of the layout above.
uint64_t series_snapshot_checksum(std::string_view bytes);

}  // namespace tsserve::server
