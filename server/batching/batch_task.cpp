#include "server/batching/batch_task.h"

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
