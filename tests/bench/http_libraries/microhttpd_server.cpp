// Candidate 3: libmicrohttpd. Its own epoll thread pool; the body arrives in pieces that
// the handler gathers, and the answer is queued on the last call.
#include <microhttpd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "forecast_payload.h"
#include "libtorch_loaded.h"

namespace {

MHD_Result handle(void*, MHD_Connection* connection, const char*, const char*, const char*,
                  const char* upload_data, size_t* upload_data_size, void** state) {
  auto* body = static_cast<std::string*>(*state);
  if (body == nullptr) {
    *state = new std::string();
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    body->append(upload_data, *upload_data_size);
    *upload_data_size = 0;
    return MHD_YES;
  }
  unsigned status = MHD_HTTP_OK;
  std::string answer;
  try {
    answer = http_bench::forecast_answer(*body);
  } catch (const std::exception& e) {
    status = MHD_HTTP_BAD_REQUEST;
    answer = e.what();
  }
  MHD_Response* response =
      MHD_create_response_from_buffer(answer.size(), answer.data(), MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(response, "Content-Type", "application/json");
  const MHD_Result queued = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return queued;
}

void completed(void*, MHD_Connection*, void** state, MHD_RequestTerminationCode) {
  delete static_cast<std::string*>(*state);
  *state = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 18082;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  std::printf("libtorch %.0f\n", http_bench::libtorch_loaded());
  MHD_Daemon* daemon =
      MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_TURBO,
                       static_cast<uint16_t>(port), nullptr, nullptr, &handle, nullptr,
                       MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(threads),
                       MHD_OPTION_NOTIFY_COMPLETED, &completed, nullptr, MHD_OPTION_END);
  if (daemon == nullptr) {
    std::printf("libmicrohttpd could not start on %d\n", port);
    return 1;
  }
  std::printf("libmicrohttpd serving on %d with %d threads\n", port, threads);
  std::fflush(stdout);
  for (;;) pause();  // served by the daemon's threads until killed
}
