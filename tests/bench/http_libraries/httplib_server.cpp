// Candidate 2: cpp-httplib. Blocking, one pool thread per connection for as long as the
// connection is kept alive, so the pool must be as large as the concurrency.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>

#include "forecast_payload.h"
#include "libtorch_loaded.h"

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 18081;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  std::printf("libtorch %.0f\n", http_bench::libtorch_loaded());
  httplib::Server server;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.Post("/infer", [](const httplib::Request& request, httplib::Response& response) {
    try {
      response.set_content(http_bench::forecast_answer(request.body), "application/json");
    } catch (const std::exception& e) {
      response.status = 400;
      response.set_content(e.what(), "text/plain");
    }
  });
  std::printf("cpp-httplib serving on %d with %d threads\n", port, threads);
  std::fflush(stdout);
  server.listen("127.0.0.1", port);
}
