#pragma once
// When an open-loop load generator sends: at a constant rate, or as a Poisson process
// (exponential gaps, the arrivals of many independent users). Seeded, so a run repeats.

#include <cstdint>
#include <random>
#include <string>

namespace tsserve::client {

enum class Arrival { kConstant, kPoisson };

// "constant" or "poisson"; throws std::invalid_argument otherwise.
Arrival parse_arrival(const std::string& text);

class ArrivalSchedule {
 public:
  ArrivalSchedule(double rate_per_second, Arrival arrival, uint64_t seed);
  // Seconds from the start of the run to the next send; increasing.
  double next_send_seconds();

 private:
  double rate_;
  Arrival arrival_;
  std::mt19937_64 random_;
  std::exponential_distribution<double> gap_;
  double next_ = 0;
  uint64_t sent_ = 0;
};

}  // namespace tsserve::client
