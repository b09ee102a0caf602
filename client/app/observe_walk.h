#pragma once
// Feeding a CSV to a live series point by point (Observe): `tsserve-client observe`, and
// `tsserve-client replay --observe` (observe_command.cpp).

#include <cstddef>
#include <string>
#include <vector>

#include "connection_flags.h"

namespace tsserve::client::cli {

struct ObserveWalk {
  ConnectionFlags connection;  // several targets: the key picks one (key_routing.h)
  std::string csv;
  std::vector<std::string> columns;
  std::string series_key;
  std::string model;
  std::size_t start = 0;  // first row observed alone; 0 = seq_len
  std::size_t end = 0;    // rows from here on are not sent; 0 = all
  std::vector<double> intervals;
  std::string out;
  bool quiet = false;
};

// Runs the walk; the process exit code (exit_codes.h).
int run_observe_walk(const ObserveWalk& walk);

}  // namespace tsserve::client::cli
