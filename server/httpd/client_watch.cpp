#include "server/httpd/http_message.h"

namespace tsserve::server {

void ClientWatch::on_gone(std::function<void()> callback) {
  {
    MutexLock lock(mutex_);
    if (!gone_) {
      callback_ = std::move(callback);
      return;
    }
  }
  callback();
}

void ClientWatch::notify_gone() {
  std::function<void()> callback;
  {
    MutexLock lock(mutex_);
    if (gone_) return;
    gone_ = true;
    callback = std::move(callback_);
  }
  // Outside the lock: the callback ends a call, which may take locks of its own.
  if (callback) callback();
}

}  // namespace tsserve::server
