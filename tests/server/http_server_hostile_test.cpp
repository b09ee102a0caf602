// tsserve's HTTP server against clients that try to make a request cost more than its
// size: a request refused on its headers is answered before its body is read (and before
// a 100-continue), and a client sending that body anyway still reads the answer; an
// endless chunk-size line stops at the framing bound; connections over the cap make room
// by closing an idle one, or are answered 503; a HEAD answer carries no body, so the next
// answer on the connection stays in step; a handler that throws gets a 500 and the
// server goes on.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <stdexcept>

#include "raw_http_client.h"
#include "server/httpd/http_server.h"

namespace tsserve::server {
namespace {

using ::testing::HasSubstr;
using tsserve::testing::RawHttpConnection;

HttpServerOptions hostile_test_options() {
  HttpServerOptions options;
  options.address = "127.0.0.1:0";
  options.threads = 2;
  options.max_body_bytes = 100'000;
  options.max_header_bytes = 2048;
  options.max_framing_bytes = 4096;
  options.request_timeout = std::chrono::milliseconds(2000);
  return options;
}

// Answers "METHOD PATH BODY"; throws for the path /throw.
struct CountingHandler {
  std::atomic<int> seen{0};
  HttpHandler handler() {
    return [this](HttpRequest&& request, HttpResponder respond) {
      ++seen;
      if (request.path == "/throw") throw std::runtime_error("a planted failure");
      HttpResponse response;
      response.content_type = "text/plain";
      response.body = request.method + " " + request.path + " " + request.body;
      respond(std::move(response));
    };
  }
};

// Refuses (401) any request carrying "X-Deny", on its headers.
std::optional<HttpResponse> deny_marked(const HttpRequest& head) {
  if (!head.header("x-deny")) return std::nullopt;
  HttpResponse refusal;
  refusal.status = 401;
  refusal.body = R"({"error":"denied on its headers"})";
  return refusal;
}

TEST(HttpServerHostileTest, RefusesOnTheHeadersBeforeAContinueOrTheBody) {
  CountingHandler handler;
  HttpServerOptions options = hostile_test_options();
  options.head_check = deny_marked;
  HttpServer server(options, handler.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(
      connection.send("POST /x HTTP/1.1\r\nHost: t\r\nX-Deny: 1\r\nContent-Length: 90000\r\n"
                      "Expect: 100-continue\r\n\r\n"));
  // The refusal, not a 100 Continue: the body is never invited.
  auto reply = connection.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 401);
  EXPECT_EQ(reply->header("connection"), "close");
  EXPECT_TRUE(connection.closed_by_server(std::chrono::seconds(5)));
  EXPECT_EQ(handler.seen, 0);
}

TEST(HttpServerHostileTest, AClientThatSendsTheRefusedBodyAnywayReadsTheAnswer) {
  CountingHandler handler;
  HttpServerOptions options = hostile_test_options();
  options.head_check = deny_marked;
  HttpServer server(options, handler.handler());
  RawHttpConnection connection(server.port());
  const std::string body(90'000, 'b');
  ASSERT_TRUE(connection.send("POST /x HTTP/1.1\r\nHost: t\r\nX-Deny: 1\r\nContent-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body));
  auto reply = connection.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 401);
  EXPECT_THAT(reply->body, HasSubstr("denied on its headers"));
  EXPECT_EQ(handler.seen, 0);
}

TEST(HttpServerHostileTest, AnAdmittedRequestIsHandledWhole) {
  CountingHandler handler;
  HttpServerOptions options = hostile_test_options();
  options.head_check = deny_marked;
  HttpServer server(options, handler.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send("POST /ok HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nbody"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, "POST /ok body");
}

TEST(HttpServerHostileTest, AnEndlessChunkSizeLineStopsAtTheFramingBound) {
  CountingHandler handler;
  HttpServer server(hostile_test_options(), handler.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(
      connection.send("POST /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1;" +
                      std::string(3000, 'e')));
  // Still within the bound: the server waits for the rest of the line.
  EXPECT_FALSE(connection.read_reply(std::chrono::milliseconds(200)));
  connection.send(std::string(20'000, 'e'));
  auto reply = connection.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_THAT(reply->body, HasSubstr("over 4096 bytes"));
  EXPECT_TRUE(connection.closed_by_server(std::chrono::seconds(5)));
  EXPECT_EQ(handler.seen, 0);
}

TEST(HttpServerHostileTest, AHeaderBlockSentAFieldAtATimeStillStopsAtTheLimit) {
  CountingHandler handler;
  HttpServer server(hostile_test_options(), handler.handler());  // 2048 header bytes
  RawHttpConnection connection(server.port());
  // Each write ends one byte into the next field, so no read holds more than one field:
  // the limit must be on the block, not on each read.
  std::string pending = "GET /h HTTP/1.1\r\nHost: t\r\nX";
  std::optional<tsserve::testing::HttpReply> reply;
  for (int field = 0; field < 40 && !reply; ++field) {
    if (!connection.send(pending + "-" + std::to_string(field) + ": " + std::string(300, 'v') +
                         "\r\nX")) {
      break;
    }
    pending.clear();
    // The wait is for the server's answer (it comes once the block is over the limit).
    reply = connection.read_reply(std::chrono::milliseconds(20));
  }
  if (!reply) reply = connection.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 431);
  EXPECT_EQ(handler.seen, 0);
}

TEST(HttpServerHostileTest, ATrailerOverABeastFieldsMostIsRefusedNotDropped) {
  CountingHandler handler;
  HttpServerOptions options = hostile_test_options();
  options.max_framing_bytes = 100'000;  // over what a field can hold: bounded below it
  HttpServer server(options, handler.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send(
      "POST /t HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n"
      "X-Trailer: " +
      std::string(70'000, 'v') + "\r\n\r\n"));
  auto reply = connection.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_THAT(reply->body, HasSubstr("trailer is over 63487 bytes"));
  EXPECT_EQ(handler.seen, 0);
}

TEST(HttpServerHostileTest, AHeadAnswerCarriesNoBodySoTheNextAnswerStaysInStep) {
  CountingHandler handler;
  HttpServer server(hostile_test_options(), handler.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(
      connection.send("HEAD /page HTTP/1.1\r\nHost: t\r\n\r\n"
                      "GET /page HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto head = connection.read_head_reply();
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  // The length a GET's body would have ("HEAD /page " is 11 bytes).
  EXPECT_EQ(head->header("content-length"), "11");
  auto get = connection.read_reply();
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "GET /page ");
}

TEST(HttpServerHostileTest, AtTheCapAnIdleConnectionMakesRoom) {
  CountingHandler handler;
  HttpServerOptions options = hostile_test_options();
  options.max_connections = 2;
  HttpServer server(options, handler.handler());
  RawHttpConnection first(server.port());
  RawHttpConnection second(server.port());
  // Both idle (nothing sent); a third is served, and one of the first two goes.
  RawHttpConnection third(server.port());
  ASSERT_TRUE(third.send("GET /third HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto reply = third.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  const bool first_closed = first.closed_by_server(std::chrono::milliseconds(500));
  const bool second_closed = first_closed || second.closed_by_server(std::chrono::seconds(5));
  EXPECT_TRUE(first_closed || second_closed);
}

TEST(HttpServerHostileTest, AtTheCapWithNoIdleConnectionTheNewOneIsAnswered503) {
  std::promise<HttpResponder> held;
  std::atomic<int> refused{0};
  HttpServerOptions options = hostile_test_options();
  options.max_connections = 1;
  options.on_connection_refused = [&refused] { ++refused; };
  HttpServer server(options, [&held](HttpRequest&&, HttpResponder respond) {
    held.set_value(std::move(respond));
  });
  RawHttpConnection busy(server.port());
  ASSERT_TRUE(busy.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n"));
  HttpResponder respond = held.get_future().get();
  RawHttpConnection extra(server.port());
  auto reply = extra.read_reply(std::chrono::seconds(5));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 503);
  EXPECT_THAT(reply->body, HasSubstr("maximum of 1 connections"));
  EXPECT_EQ(reply->header("retry-after"), "1");
  EXPECT_TRUE(extra.closed_by_server(std::chrono::seconds(5)));
  EXPECT_EQ(refused.load(), 1);
  respond(HttpResponse{});
  auto answered = busy.read_reply();
  ASSERT_TRUE(answered);
  EXPECT_EQ(answered->status, 200);
}

TEST(HttpServerHostileTest, AHandlerThatThrowsGetsA500AndTheServerGoesOn) {
  CountingHandler handler;
  HttpServer server(hostile_test_options(), handler.handler());
  {
    RawHttpConnection connection(server.port());
    ASSERT_TRUE(connection.send("GET /throw HTTP/1.1\r\nHost: t\r\n\r\n"));
    auto reply = connection.read_reply();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 500);
    EXPECT_THAT(reply->body, HasSubstr("internal error"));
  }
  RawHttpConnection next(server.port());
  ASSERT_TRUE(next.send("GET /fine HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto reply = next.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(handler.seen, 2);
}

TEST(HttpServerHostileTest, AHeadCheckThatThrowsGetsA500) {
  CountingHandler handler;
  HttpServerOptions options = hostile_test_options();
  options.head_check = [](const HttpRequest&) -> std::optional<HttpResponse> {
    throw std::runtime_error("a planted failure");
  };
  HttpServer server(options, handler.handler());
  RawHttpConnection connection(server.port());
  ASSERT_TRUE(connection.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto reply = connection.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 500);
  EXPECT_EQ(handler.seen, 0);
}

}  // namespace
}  // namespace tsserve::server
