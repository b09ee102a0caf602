#pragma once
// The batcher's tuned limits, written once: BatcherOptions (dynamic_batcher.h) starts from
// them, and so do the server's options (config/server_options.h, BatchingOptions), whose
// table (config/config_option.cpp) says why these values.

#include <cstddef>

namespace tsserve::server {

// Rows (series) in one forward pass at most.
inline constexpr std::size_t kDefaultMaxBatchRows = 448;
// Rows queued at most, excluding batches being processed.
inline constexpr std::size_t kDefaultMaxQueueRows = 8192;

}  // namespace tsserve::server
