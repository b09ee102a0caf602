#pragma once
// Whether the server serves: false until the model is loaded and warmed up, true while it
// serves, false again from the start of the drain. One value that every readiness answer
// reads (grpc.health.v1 is set from the same transitions, the Open Inference Protocol's
// ServerReady and ModelReady read it) and that admission checks, so no protocol can call
// the server ready while another refuses work.
//
// Thread safety: any thread; set by the server's assembly, read by every handler.

#include <atomic>

namespace tsserve::server {

class ServingState {
 public:
  void set_serving(bool serving) { serving_.store(serving, std::memory_order_release); }
  bool serving() const { return serving_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> serving_{false};
};

}  // namespace tsserve::server
