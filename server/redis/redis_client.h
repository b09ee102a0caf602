#pragma once
// A small pool of blocking connections to one Redis (hiredis), for the shared series
// store. A call takes one connection, sends its commands pipelined (one round trip), reads
// every reply and gives the connection back; a connection that fails is closed, and the
// next call connects again, so a Redis that comes back is used again without a restart.
//
// Every failure is UNAVAILABLE, its message naming the store ("series store
// redis://HOST:PORT/DB: ...") and what failed: no connection, a timeout (connecting and
// each reply are bounded by the timeout), a closed connection, an error reply (a Redis
// still loading its AOF answers LOADING), or every connection busy for the whole timeout.
// Counted in the metrics (redis_store_metrics.h); `on_reachability` hears each change
// between reaching the store and not.
//
// Thread safety: every member may be called from any thread.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "server/config/series_store_url.h"
#include "server/redis/redis_store_metrics.h"
#include "server/status/status.h"
#include "server/sync/mutex.h"

struct redisContext;

namespace tsserve::server {

struct RedisClientOptions {
  SeriesStoreUrl url;
  std::string password;  // "" = no AUTH
  std::chrono::milliseconds timeout{1000};
  int connections = 8;
};

// One reply, copied out of hiredis' (so no hiredis type escapes this class).
struct RedisReply {
  enum class Type { kNil, kString, kInteger, kArray, kStatus, kError };
  Type type = Type::kNil;
  std::string text;  // kString, kStatus, kError
  int64_t integer = 0;
  std::vector<RedisReply> elements;  // kArray
};

using RedisCommand = std::vector<std::string>;

class RedisClient {
 public:
  // `metrics` may be null; it and `on_reachability` (may be empty) outlive the client.
  RedisClient(RedisClientOptions options, RedisStoreMetrics* metrics,
              std::function<void(bool reachable)> on_reachability);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Sends `commands` in one round trip on one connection; *replies receives one reply per
  // command. `operation` labels the metrics. An error reply to any command fails the call.
  // Scripts ({"EVAL", script, ...}) are sent as EVALSHA once Redis has them (it hashes an
  // EVAL's whole text on every call).
  Status run(const char* operation, const std::vector<RedisCommand>& commands,
             std::vector<RedisReply>* replies);

  // "series store redis://HOST:PORT/DB".
  const std::string& name() const { return name_; }

 private:
  struct Connection;

  // A connection, idle or new (a failure to make one marks the store unreachable).
  Status acquire(std::unique_ptr<Connection>* connection);
  Status exchange(const char* operation, const std::vector<RedisCommand>& commands,
                  std::vector<RedisReply>* replies);
  // One round trip: `commands`, each EVAL as EVALSHA when `use_shas` and its SHA1 is
  // known, else loaded first (its SHA1 learned). Error replies are replies here.
  Status exchange_once(const std::vector<RedisCommand>& commands, bool use_shas,
                       std::vector<RedisReply>* replies);
  // The scripts whose SHA1 this client knows (to load on a new connection).
  std::vector<std::string> known_scripts() const;
  // The SHA1 Redis gave `script`, or "" (not loaded by this client, or forgotten).
  std::string script_sha(const std::string& script);
  void set_script_sha(const std::string& script, std::string sha);
  void release(std::unique_ptr<Connection> connection, bool healthy);
  Status connect(std::unique_ptr<Connection>* connection) const;
  Status unavailable(const std::string& what) const;
  void note_reachable(bool reachable);

  const RedisClientOptions options_;
  const std::string name_;
  RedisStoreMetrics* const metrics_;
  const std::function<void(bool)> on_reachability_;

  mutable Mutex mutex_;
  std::condition_variable idle_changed_;
  std::vector<std::unique_ptr<Connection>> idle_ TSSERVE_GUARDED_BY(mutex_);
  int open_ TSSERVE_GUARDED_BY(mutex_) = 0;  // idle and in use
  bool reachable_ TSSERVE_GUARDED_BY(mutex_) = true;
  std::unordered_map<std::string, std::string> script_shas_ TSSERVE_GUARDED_BY(mutex_);
};

}  // namespace tsserve::server
