#include "server/batching/batch_task.h"

// Why an abstract task rather than a DynamicBatcher<Task> template: the batcher's locking,
// timing and draining then live in one .cpp, compiled and tested once, behind a header
// that is only a contract. Server tasks are heap objects that own an RPC's reactor and
// finish it through a virtual completion anyway, and one virtual call per task per batch
// costs nothing next to a forward pass.

namespace tsserve::server {

bool BatchTask::complete(const Status& status) noexcept {
  if (completed_.exchange(true, std::memory_order_acq_rel)) {
    return false;
  }
  on_complete(status);
  return true;
}

}  // namespace tsserve::server
