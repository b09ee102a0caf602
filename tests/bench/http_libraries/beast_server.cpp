// Candidate 1: Boost.Beast on Asio. An asynchronous HTTP/1.1 server with keep-alive, its
// io_context run by `threads` threads of our own (default stacks).
#include <boost/asio.hpp>
#include <boost/beast.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "forecast_payload.h"
#include "libtorch_loaded.h"

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class Session : public std::enable_shared_from_this<Session> {
 public:
  explicit Session(tcp::socket socket) : stream_(std::move(socket)) {
    // Beast reads at most the buffer's free capacity (512 bytes at first): room for a
    // whole request makes it one read instead of dozens.
    buffer_.reserve(64 * 1024);
  }
  void read() {
    request_ = {};
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) self->answer();
                     });
  }

 private:
  void answer() {
    auto response =
        std::make_shared<http::response<http::string_body>>(http::status::ok, request_.version());
    response->set(http::field::content_type, "application/json");
    try {
      response->body() = http_bench::forecast_answer(request_.body());
    } catch (const std::exception& e) {
      response->result(http::status::bad_request);
      response->body() = e.what();
    }
    response->keep_alive(request_.keep_alive());
    response->prepare_payload();
    http::async_write(stream_, *response,
                      [self = shared_from_this(), response](beast::error_code ec, std::size_t) {
                        if (!ec && response->keep_alive()) self->read();
                      });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
};

void accept(tcp::acceptor& acceptor) {
  acceptor.async_accept([&acceptor](beast::error_code ec, tcp::socket socket) {
    if (!ec) {
      socket.set_option(tcp::no_delay(true));
      std::make_shared<Session>(std::move(socket))->read();
    }
    accept(acceptor);
  });
}

int main(int argc, char** argv) {
  const int port = argc > 1 ? std::atoi(argv[1]) : 18080;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  std::printf("libtorch %.0f\n", http_bench::libtorch_loaded());
  asio::io_context io(threads);
  tcp::acceptor acceptor(io,
                         {asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  accept(acceptor);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back([&io] { io.run(); });
  std::printf("beast serving on %d with %d threads\n", port, threads);
  std::fflush(stdout);
  for (auto& t : pool) t.join();
}
