#include "server/redis/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <algorithm>
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
  // The scripts this client sends by SHA1, loaded again: a Redis that restarted has none.
  for (std::string& script : known_scripts()) setup.push_back({"SCRIPT", "LOAD", std::move(script)});
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

std::vector<std::string> RedisClient::known_scripts() const {
  MutexLock lock(mutex_);
  std::vector<std::string> scripts;
  for (const auto& [script, sha] : script_shas_) scripts.push_back(script);
  return scripts;
}

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
  // Scripts go as their SHA1 (EVALSHA), each loaded once (SCRIPT LOAD pipelined before its
  // first EVAL, and again on every new connection, so a Redis that restarted has them).
  // NOSCRIPT (Redis forgot them without a restart: SCRIPT FLUSH): nothing of that command
  // ran, so a call of one command is sent again with the scripts' text; in a pipeline the
  // commands around it may have run, so the call fails UNAVAILABLE (a retry loads them).
  for (int attempt = 0;; ++attempt) {
    TSSERVE_RETURN_IF_ERROR(exchange_once(commands, attempt == 0, replies));
    const bool forgotten = std::any_of(replies->begin(), replies->end(), [](const RedisReply& r) {
      return r.type == RedisReply::Type::kError && r.text.rfind("NOSCRIPT", 0) == 0;
    });
    if (!forgotten) break;
    for (const RedisCommand& command : commands) {
      if (is_eval(command)) set_script_sha(command[1], "");
    }
    if (commands.size() > 1) {
      return unavailable(operation + std::string(": Redis no longer holds the server's scripts "
                                                 "(SCRIPT FLUSH?); they are loaded again on the "
                                                 "next call: retry"));
    }
    if (attempt > 0) break;
  }
  const std::string error = first_error(*replies);
  if (!error.empty()) return unavailable(operation + std::string(": ") + error);
  return Status();
}

Status RedisClient::exchange_once(const std::vector<RedisCommand>& commands, bool use_shas,
                                  std::vector<RedisReply>* replies) {
  std::unique_ptr<Connection> connection;
  TSSERVE_RETURN_IF_ERROR(acquire(&connection));
  // Each script's SHA1 when known; the scripts not yet loaded are, first.
  std::vector<std::string> shas(commands.size());
  std::vector<const std::string*> loads;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    if (!is_eval(commands[i])) continue;
    if (use_shas) shas[i] = script_sha(commands[i][1]);
    if (shas[i].empty() && std::none_of(loads.begin(), loads.end(), [&](const std::string* s) {
          return *s == commands[i][1];
        })) {
      loads.push_back(&commands[i][1]);
    }
  }
  for (const std::string* script : loads) {
    append_command(connection->context, {"SCRIPT", "LOAD", *script}, nullptr);
  }
  for (std::size_t i = 0; i < commands.size(); ++i) {
    append_command(connection->context, commands[i], shas[i].empty() ? nullptr : &shas[i]);
  }
  replies->clear();
  replies->reserve(commands.size());
  const std::size_t expected = loads.size() + commands.size();
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
    if (i < loads.size()) {
      if (typed->type == REDIS_REPLY_STRING) {
        set_script_sha(*loads[i], std::string(typed->str, typed->len));
      }
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
