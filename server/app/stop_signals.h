#pragma once
// SIGTERM and SIGINT, received by whichever thread the kernel picks, turned into a value
// the main thread waits for.
//
// Why not block the signals and sigwait: threads created before main() (OpenBLAS starts
// its workers when the library loads) keep the default mask, so a SIGTERM that arrives
// while the main thread is not yet in sigwait goes to one of them and its default action
// kills the process without a drain (seen: exit 143 for a SIGTERM sent right after the
// listening line, with 2 intra-op threads). A handler runs on any thread instead; it only
// writes the signal number to a pipe (async-signal-safe), and the main thread reads it.

namespace tsserve::server {

// Installs the handlers (SA_RESTART, so other threads' system calls carry on). Call once,
// early in main(). Throws std::runtime_error when the pipe or the handlers cannot be set.
void install_stop_signal_handlers();

// Blocks until SIGTERM or SIGINT arrives (or arrived since installation); returns it.
int wait_for_stop_signal();

}  // namespace tsserve::server
