#include "raw_http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace tsserve::testing {

std::optional<std::string> HttpReply::header(const std::string& name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return value;
  return std::nullopt;
}

RawHttpConnection::RawHttpConnection(int port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (fd_ >= 0) ::close(fd_);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
}

RawHttpConnection::~RawHttpConnection() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawHttpConnection::send(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

bool RawHttpConnection::fill(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd fd{fd_, POLLIN, 0};
  if (::poll(&fd, 1, static_cast<int>(left.count())) <= 0) return false;
  char chunk[65536];
  const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) return false;
  buffer_.append(chunk, static_cast<std::size_t>(n));
  return true;
}

std::optional<HttpReply> RawHttpConnection::read_reply(std::chrono::milliseconds limit) {
  return read(limit, true);
}

std::optional<HttpReply> RawHttpConnection::read_head_reply(std::chrono::milliseconds limit) {
  return read(limit, false);
}

std::optional<HttpReply> RawHttpConnection::read(std::chrono::milliseconds limit, bool with_body) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::size_t end;
  while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!fill(deadline)) return std::nullopt;
  }
  HttpReply reply;
  const std::string head = buffer_.substr(0, end);
  std::size_t line_end = head.find("\r\n");
  const std::string status_line = head.substr(0, line_end);
  const std::size_t space = status_line.find(' ');
  if (space == std::string::npos) return std::nullopt;
  reply.status = std::stoi(status_line.substr(space + 1, 3));
  std::size_t length = 0;
  while (line_end != std::string::npos && line_end < head.size()) {
    const std::size_t next = head.find("\r\n", line_end + 2);
    const std::string line = head.substr(
        line_end + 2, next == std::string::npos ? std::string::npos : next - line_end - 2);
    line_end = next;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (name == "content-length") length = std::stoul(value);
    reply.headers.emplace_back(std::move(name), std::move(value));
  }
  buffer_.erase(0, end + 4);
  if (!with_body) return reply;
  while (buffer_.size() < length) {
    if (!fill(deadline)) return std::nullopt;
  }
  reply.body = buffer_.substr(0, length);
  buffer_.erase(0, length);
  return reply;
}

bool RawHttpConnection::closed_by_server(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd fd{fd_, POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return true;  // end of stream, or reset
  }
}

HttpReply http_call(int port, const std::string& method, const std::string& path,
                    const std::string& body,
                    const std::vector<std::pair<std::string, std::string>>& headers) {
  RawHttpConnection connection(port);
  std::string request = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (const auto& [name, value] : headers) request += name + ": " + value + "\r\n";
  if (!body.empty() || method == "POST") {
    request += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  request += "\r\n" + body;
  if (!connection.send(request)) throw std::runtime_error("the server refused the request");
  auto reply = connection.read_reply();
  if (!reply) throw std::runtime_error(method + " " + path + ": no reply");
  return *reply;
}

}  // namespace tsserve::testing
