#pragma once
// The error the checkpoint parsers throw below the public readers. It carries the
// problem without the file name; the public read_*() functions add the file name once,
// when they convert it (and LibTorch or allocation failures) into ModelError.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tsserve::model::detail {

class CheckpointFormatError : public std::runtime_error {
 public:
  explicit CheckpointFormatError(const std::string& problem) : std::runtime_error(problem) {}
};

// Text from the file made fit for an error message: bytes outside printable ASCII are
// escaped as \xNN and anything past `max_shown` characters is cut to "...", so a
// corrupt name cannot put control bytes, invalid UTF-8 or megabytes into a message.
std::string printable(std::string_view text, size_t max_shown = 200);

// printable(text, 80) in single quotes.
std::string quote(std::string_view text);

// Call from a catch (...) block of a public reader: rethrows the exception in flight as
// ModelError("checkpoint <path>: <problem>"). c10::Error keeps only its message (no
// backtrace); std::bad_alloc becomes "out of memory"; anything else keeps what().
[[noreturn]] void rethrow_as_model_error(const std::string& path);

}  // namespace tsserve::model::detail
