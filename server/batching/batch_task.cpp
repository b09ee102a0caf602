#include "server/batching/batch_task.h"

// Why an abstract task rather than a DynamicBatcher<Task> template: the batcher's locking,
// timing and draining then live in one .cpp, compiled and tested once, behind a header
// that is only a contract. Server tasks are heap objects that own an RPC's reactor and
// finish it through a virtual completion anyway, and one virtual call per task per batch
// costs nothing next to a forward pass.

namespace tsserve::server {

const char* to_string(TaskCode code) {
  switch (code) {
    case TaskCode::kOk:
      return "OK";
    case TaskCode::kCancelled:
      return "CANCELLED";
    case TaskCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case TaskCode::kInternal:
      return "INTERNAL";
    case TaskCode::kUnavailable:
      return "UNAVAILABLE";
  }
  return "UNKNOWN";
}

bool BatchTask::complete(const TaskStatus& status) noexcept {
  if (completed_.exchange(true, std::memory_order_acq_rel)) {
    return false;
  }
  on_complete(status);
  return true;
}

}  // namespace tsserve::server
