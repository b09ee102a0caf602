#include "tsserve/client/arrival_schedule.h"

#include <stdexcept>

namespace tsserve::client {

Arrival parse_arrival(const std::string& text) {
  if (text == "constant") return Arrival::kConstant;
  if (text == "poisson") return Arrival::kPoisson;
  throw std::invalid_argument("arrival: '" + text + "' is not one of constant, poisson");
}

ArrivalSchedule::ArrivalSchedule(double rate_per_second, Arrival arrival, uint64_t seed)
    : rate_(rate_per_second), arrival_(arrival), random_(seed), gap_(rate_per_second) {
  if (!(rate_per_second > 0)) throw std::invalid_argument("rate: must be > 0 requests/s");
}

double ArrivalSchedule::next_send_seconds() {
  if (arrival_ == Arrival::kConstant) {
    // From the count, not by summing gaps, so rounding never drifts the rate.
    return static_cast<double>(sent_++) / rate_;
  }
  const double send = next_;
  next_ += gap_(random_);
  return send;
}

}  // namespace tsserve::client
