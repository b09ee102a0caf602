#include "server/redis/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <utility>

namespace tsserve::server {
namespace {

timeval to_timeval(std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  return tv;
}

RedisReply copy_reply(const redisReply& reply) {
  RedisReply out;
  switch (reply.type) {
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply.integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      out.elements.reserve(reply.elements);
      for (std::size_t i = 0; i < reply.elements; ++i) {
        out.elements.push_back(copy_reply(*reply.element[i]));
      }
      break;
    case REDIS_REPLY_ERROR:
      out.type = RedisReply::Type::kError;
      out.text.assign(reply.str, reply.len);
      break;
    default:
      break;
  }
  return out;
}

// The first error reply within `replies` (EXEC answers an array of replies), or "".
std::string first_error(const std::vector<RedisReply>& replies) {
  for (const RedisReply& reply : replies) {
    if (reply.type == RedisReply::Type::kError) return reply.text;
    if (reply.type == RedisReply::Type::kArray) {
      std::string error = first_error(reply.elements);
      if (!error.empty()) return error;
    }
  }
  return "";
}

// The first error reply within `reply` (EXEC answers an array of replies), or "".
std::string error_in(const redisReply& reply) {
  if (reply.type == REDIS_REPLY_ERROR) return std::string(reply.str, reply.len);
  if (reply.type == REDIS_REPLY_ARRAY) {
    for (std::size_t i = 0; i < reply.elements; ++i) {
      std::string error = error_in(*reply.element[i]);
      if (!error.empty()) return error;
    }
  }
  return "";
}

struct ReplyFree {
  void operator()(void* reply) const { freeReplyObject(reply); }
};
using OwnedReply = std::unique_ptr<void, ReplyFree>;

}  // namespace

struct RedisClient::Connection {
  redisContext* context = nullptr;
  ~Connection() {
    if (context != nullptr) redisFree(context);
  }
};

RedisClient::RedisClient(RedisClientOptions options, RedisStoreMetrics* metrics,
                         std::function<void(bool)> on_reachability)
    : options_(std::move(options)),
      name_("series store " + options_.url.text()),
      metrics_(metrics),
      on_reachability_(std::move(on_reachability)) {}

RedisClient::~RedisClient() = default;

Status RedisClient::unavailable(const std::string& what) const {
  return {StatusCode::kUnavailable, name_ + ": " + what};
}

Status RedisClient::connect(std::unique_ptr<Connection>* connection) const {
  auto made = std::make_unique<Connection>();
  made->context = redisConnectWithTimeout(options_.url.host.c_str(), options_.url.port,
                                          to_timeval(options_.timeout));
  if (made->context == nullptr) return unavailable("cannot allocate a connection");
  if (made->context->err != 0) {
    return unavailable(std::string("cannot connect: ") + made->context->errstr);
  }
  if (redisSetTimeout(made->context, to_timeval(options_.timeout)) != REDIS_OK) {
    return unavailable("cannot set the timeout");
  }
  std::vector<RedisCommand> setup;
  if (!options_.password.empty()) setup.push_back({"AUTH", options_.password});
  if (options_.url.database != 0) setup.push_back({"SELECT", std::to_string(options_.url.database)});
  for (const RedisCommand& command : setup) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const std::string& arg : command) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    const OwnedReply reply(redisCommandArgv(made->context, static_cast<int>(argv.size()),
                                            argv.data(), lengths.data()));
    if (!reply) return unavailable(std::string("connection lost: ") + made->context->errstr);
    const std::string error = error_in(*static_cast<redisReply*>(reply.get()));
    // AUTH's error names the cause (WRONGPASS ...) and never echoes the password.
    if (!error.empty()) return unavailable(command[0] + " refused: " + error);
  }
  *connection = std::move(made);
  return Status();
}

Status RedisClient::acquire(std::unique_ptr<Connection>* connection) {
  {
    MutexLock lock(mutex_);
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    while (idle_.empty() && open_ >= options_.connections) {
      if (idle_changed_.wait_until(lock.native(), deadline) == std::cv_status::timeout &&
          idle_.empty() && open_ >= options_.connections) {
        return unavailable("all " + std::to_string(options_.connections) +
                           " connections stayed busy for the timeout (--series-store-timeout-ms)");
      }
    }
    if (!idle_.empty()) {
      *connection = std::move(idle_.back());
      idle_.pop_back();
      return Status();
    }
    ++open_;
  }
  // Connecting takes up to the timeout: never under the lock.
  Status connected = connect(connection);
  if (!connected.ok()) {
    release(nullptr, false);
    note_reachable(false);
  }
  return connected;
}

void RedisClient::release(std::unique_ptr<Connection> connection, bool healthy) {
  {
    MutexLock lock(mutex_);
    if (healthy && connection) {
      idle_.push_back(std::move(connection));
    } else {
      --open_;
    }
  }
  idle_changed_.notify_one();
}

void RedisClient::note_reachable(bool reachable) {
  {
    MutexLock lock(mutex_);
    if (reachable_ == reachable) return;
    reachable_ = reachable;
  }
  if (metrics_) metrics_->set_up(reachable);
  if (on_reachability_) on_reachability_(reachable);
}

Status RedisClient::run(const char* operation, const std::vector<RedisCommand>& commands,
                        std::vector<RedisReply>* replies) {
  const auto start = std::chrono::steady_clock::now();
  Status status = exchange(operation, commands, replies);
  if (metrics_) {
    metrics_->record_call(operation,
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                              .count(),
                          status.ok());
  }
  return status;
}

namespace {

void append_command(redisContext* context, const RedisCommand& command, const std::string* sha) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(command.size());
  lengths.reserve(command.size());
  for (const std::string& arg : command) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  if (sha != nullptr) {  // EVAL script ... as EVALSHA sha ...
    static const std::string kEvalSha = "EVALSHA";
    argv[0] = kEvalSha.data();
    lengths[0] = kEvalSha.size();
    argv[1] = sha->data();
    lengths[1] = sha->size();
  }
  redisAppendCommandArgv(context, static_cast<int>(argv.size()), argv.data(), lengths.data());
}

bool is_eval(const RedisCommand& command) { return command.size() >= 2 && command[0] == "EVAL"; }

}  // namespace

std::string RedisClient::script_sha(const std::string& script) {
  MutexLock lock(mutex_);
  const auto found = script_shas_.find(script);
  return found == script_shas_.end() ? std::string() : found->second;
}

void RedisClient::set_script_sha(const std::string& script, std::string sha) {
  MutexLock lock(mutex_);
  if (sha.empty()) {
    script_shas_.erase(script);
  } else {
    script_shas_[script] = std::move(sha);
  }
}

Status RedisClient::exchange(const char* operation, const std::vector<RedisCommand>& commands,
                             std::vector<RedisReply>* replies) {
  // A call of one script sends its SHA1 (EVALSHA), loading the script the first time
  // (SCRIPT LOAD pipelined before an EVAL) and again when Redis forgot it (NOSCRIPT after
  // a restart: nothing ran, so the call is sent again with the text). Only a call of one
  // command: in a pipeline, the commands before a NOSCRIPT would have run.
  const bool one_script = commands.size() == 1 && is_eval(commands.front());
  for (int attempt = 0;; ++attempt) {
    const std::string sha = one_script ? script_sha(commands.front()[1]) : std::string();
    std::string learned;
    TSSERVE_RETURN_IF_ERROR(exchange_once(commands, sha, &learned, replies));
    if (!learned.empty()) set_script_sha(commands.front()[1], learned);
    if (sha.empty() || attempt > 0 || replies->size() != 1 ||
        replies->front().type != RedisReply::Type::kError ||
        replies->front().text.rfind("NOSCRIPT", 0) != 0) {
      break;
    }
    set_script_sha(commands.front()[1], "");
  }
  const std::string error = replies->empty() ? std::string() : first_error(*replies);
  if (!error.empty()) return unavailable(operation + std::string(": ") + error);
  return Status();
}

Status RedisClient::exchange_once(const std::vector<RedisCommand>& commands,
                                  const std::string& sha, std::string* learned,
                                  std::vector<RedisReply>* replies) {
  std::unique_ptr<Connection> connection;
  TSSERVE_RETURN_IF_ERROR(acquire(&connection));
  // One script whose SHA1 is not known yet: SCRIPT LOAD first, its answer kept apart.
  const bool load = commands.size() == 1 && is_eval(commands.front()) && sha.empty();
  if (load) append_command(connection->context, {"SCRIPT", "LOAD", commands.front()[1]}, nullptr);
  for (const RedisCommand& command : commands) {
    append_command(connection->context, command, sha.empty() ? nullptr : &sha);
  }
  replies->clear();
  replies->reserve(commands.size());
  const std::size_t expected = commands.size() + (load ? 1 : 0);
  for (std::size_t i = 0; i < expected; ++i) {
    void* raw = nullptr;
    if (redisGetReply(connection->context, &raw) != REDIS_OK || raw == nullptr) {
      Status lost =
          unavailable(std::string("connection lost or timed out: ") + connection->context->errstr);
      release(std::move(connection), false);
      note_reachable(false);
      return lost;
    }
    const OwnedReply reply(raw);
    const auto* typed = static_cast<const redisReply*>(reply.get());
    if (load && i == 0) {
      if (typed->type == REDIS_REPLY_STRING) learned->assign(typed->str, typed->len);
      continue;
    }
    replies->push_back(copy_reply(*typed));
  }
  // Every reply was read, so the connection stays in step and can be reused; an error
  // reply is an answer: the store was reached.
  release(std::move(connection), true);
  note_reachable(true);
  return Status();
}

}  // namespace tsserve::server
