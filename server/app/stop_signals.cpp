#include "stop_signals.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tsserve::server {
namespace {

int signal_pipe[2] = {-1, -1};

extern "C" void on_stop_signal(int signal_number) {
  const int saved_errno = errno;  // a handler must leave errno as it found it
  const char byte = static_cast<char>(signal_number);
  [[maybe_unused]] const ssize_t written = ::write(signal_pipe[1], &byte, 1);
  errno = saved_errno;
}

}  // namespace

void install_stop_signal_handlers() {
  if (::pipe2(signal_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("cannot create the signal pipe: " + std::string(strerror(errno)));
  }
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal_number : {SIGTERM, SIGINT}) {
    if (::sigaction(signal_number, &action, nullptr) != 0) {
      throw std::runtime_error("cannot install the handler of signal " +
                               std::to_string(signal_number));
    }
  }
}

int wait_for_stop_signal() {
  char byte = 0;
  for (;;) {
    // poll first, then read: the same for the kernel, but ThreadSanitizer runs a signal's
    // handler at once only in calls it knows can block (poll does, read in GCC 12's does
    // not); otherwise it defers the handler until this thread next synchronises, which a
    // thread asleep in read never does, and a SIGTERM would be lost.
    pollfd readable{signal_pipe[0], POLLIN, 0};
    if (::poll(&readable, 1, -1) < 0 && errno != EINTR) {
      throw std::runtime_error("cannot wait on the signal pipe: " + std::string(strerror(errno)));
    }
    if (readable.revents == 0) continue;  // EINTR: wait again (a closed pipe: read says so)
    const ssize_t n = ::read(signal_pipe[0], &byte, 1);
    if (n == 1) return static_cast<unsigned char>(byte);
    if (n < 0 && errno == EINTR) continue;
    throw std::runtime_error("the signal pipe closed");
  }
}

}  // namespace tsserve::server
