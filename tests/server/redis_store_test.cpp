// The shared series store against a real redis-server (started here on a free loopback
// port): kept forecasts scored as the plain definition scores them, windows answered as
// the in-process store answers (error messages included), two writers of one key through
// two clients (two replicas) accepting each point once (and, without the compare-and-set,
// not), and a store that is down answered UNAVAILABLE naming it, then used again when it
// is back. Skipped, with the reason, where redis-server is not installed.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kept_forecasts_parity.h"
#include "server/live/memory_series_store.h"
#include "server/redis/forecast_layout.h"
#include "server/redis/window_layout.h"
#include "server/redis/redis_client.h"
#include "server/redis/redis_kept_forecasts.h"
#include "server/redis/redis_series_store.h"
#include "server/redis/redis_store_metrics.h"

namespace tsserve::server {
namespace {

constexpr const char* kRedisServer = "/usr/bin/redis-server";

int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  close(fd);
  return ntohs(address.sin_port);
}

RedisClientOptions options_for(int port) {
  RedisClientOptions options;
  options.url.host = "127.0.0.1";
  options.url.port = port;
  options.timeout = std::chrono::milliseconds(500);
  options.connections = 4;
  return options;
}

// A redis-server child on `port`, memory only.
class RedisServer {
 public:
  explicit RedisServer(int port) : port_(port) {}
  ~RedisServer() { stop(); }

  // Starts it and waits (bounded) until it answers PING.
  void start() {
    pid_ = fork();
    if (pid_ == 0) {
      // Dies with the test, and holds none of its output: a test that crashes leaves no
      // redis-server keeping ctest's pipe open (ctest would wait for its timeout).
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      const std::string port = std::to_string(port_);
      execl(kRedisServer, kRedisServer, "--port", port.c_str(), "--bind", "127.0.0.1", "--save",
            "", "--appendonly", "no", "--loglevel", "warning", "--logfile", "/dev/null", static_cast<char*>(nullptr));
      _exit(127);
    }
    RedisClient client(options_for(port_), nullptr, nullptr);
    std::vector<RedisReply> replies;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!client.run("ping", {{"PING"}}, &replies).ok()) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "redis-server did not start";
      std::this_thread::yield();
    }
  }
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  int port() const { return port_; }

 private:
  const int port_;
  pid_t pid_ = -1;
};

class RedisStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kRedisServer, X_OK) != 0) {
      GTEST_SKIP() << "redis-server is not installed (deploy/install-deps.sh installs it)";
    }
    server_ = std::make_unique<RedisServer>(free_port());
    server_->start();
    client_ = std::make_unique<RedisClient>(options_for(server_->port()), nullptr, nullptr);
  }

  void flush() {
    std::vector<RedisReply> replies;
    ASSERT_TRUE(client_->run("flush", {{"FLUSHDB"}}, &replies).ok());
  }

  std::unique_ptr<RedisServer> server_;
  std::unique_ptr<RedisClient> client_;
};

TEST_F(RedisStoreTest, KeptForecastsScoreAsTheDefinition) {
  kept_forecasts_parity::check_random_stores(
      [this]() -> std::unique_ptr<KeptForecasts> {
        flush();
        return std::make_unique<RedisKeptForecasts>(*client_, std::chrono::hours(1));
      },
      8);
}

// Three replicas' stores on one Redis taking the calls in turn, so that a report often
// finds its replica's view of the key behind another replica's keeps.
class ReplicasInTurn final : public KeptForecasts {
 public:
  explicit ReplicasInTurn(RedisClient& client) {
    for (auto& store : stores_) {
      store = std::make_unique<RedisKeptForecasts>(client, std::chrono::hours(1));
    }
  }
  Status keep(IssuedForecast forecast, StoreDrops* drops) override {
    return next().keep(std::move(forecast), drops);
  }
  Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
               ActualsOutcome* outcome) override {
    return next().score(report, score, drops, outcome);
  }
  std::optional<std::size_t> held_entries() const override { return std::nullopt; }

 private:
  KeptForecasts& next() { return *stores_[turn_++ % 3]; }
  std::unique_ptr<RedisKeptForecasts> stores_[3];
  std::size_t turn_ = 0;
};

TEST_F(RedisStoreTest, KeptForecastsScoreAsTheDefinitionAcrossReplicas) {
  kept_forecasts_parity::check_random_stores(
      [this]() -> std::unique_ptr<KeptForecasts> {
        flush();
        return std::make_unique<ReplicasInTurn>(*client_);
      },
      8);
}

// A store whose scores ride on a write, as Observe's ride on its window's write
// (redis_series_store.h): before each score, a write of a guard's revision with the ride
// pipelined after it; one ride in three meets another revision than its guard, so it must
// mark nothing and the score run as usual. *landed and *refused count the rides.
class ScoresRidingOnWrites final : public KeptForecasts {
 public:
  ScoresRidingOnWrites(RedisClient& client, int* landed, int* refused)
      : client_(client), store_(client, std::chrono::hours(1)), landed_(*landed), refused_(*refused) {}
  Status keep(IssuedForecast forecast, StoreDrops* drops) override {
    return store_.keep(std::move(forecast), drops);
  }
  Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
               ActualsOutcome* outcome) override {
    RedisCommand command;
    RedisKeptForecasts::Ride ride;
    const std::string revision = std::to_string(++writes_);
    if (store_.prepare_ride(report, "test:guard", revision, &command, &ride)) {
      const bool lands = (landed_ + refused_) % 3 != 2;
      std::vector<RedisReply> replies;
      TSSERVE_RETURN_IF_ERROR(client_.run(
          "write", {{"HSET", "test:guard", "rev", lands ? revision : "another"}, command},
          &replies));
      EXPECT_EQ(replies[1].elements.at(0).integer, lands ? 1 : 2);
      (lands ? landed_ : refused_) += 1;
      store_.finish_ride(std::move(ride), replies[1]);
    }
    return store_.score(report, score, drops, outcome);
  }
  std::optional<std::size_t> held_entries() const override { return std::nullopt; }

 private:
  RedisClient& client_;
  RedisKeptForecasts store_;
  int64_t writes_ = 0;
  int& landed_;
  int& refused_;
};

TEST_F(RedisStoreTest, ScoresRidingOnAWriteScoreAsTheDefinition) {
  int landed = 0, refused = 0;
  kept_forecasts_parity::check_random_stores(
      [&]() -> std::unique_ptr<KeptForecasts> {
        flush();
        return std::make_unique<ScoresRidingOnWrites>(*client_, &landed, &refused);
      },
      8);
  EXPECT_GT(landed, 10) << "too few scores rode on a write to show anything";
  EXPECT_GT(refused, 3) << "too few rides met another revision than their guard";
}

// A store whose keeps are begun in groups (a batch's, as finish_tasks begins them) and
// waited on only before the next score, or when the group is full: the pipelined keeps
// must keep as the plain ones do. *groups counts the groups of more than one keep.
class KeepsBegunInGroups final : public KeptForecasts {
 public:
  KeepsBegunInGroups(RedisClient& client, int* groups)
      : store_(client, std::chrono::hours(1)), groups_(*groups) {}
  Status keep(IssuedForecast forecast, StoreDrops* /*drops*/) override {
    pending_.push_back(store_.begin_keep(std::move(forecast)));
    if (pending_.size() == 1 + writes_++ % 4) wait_all();
    return Status();
  }
  Status score(const ActualsReport& report, const ScoreSink& score, StoreDrops* drops,
               ActualsOutcome* outcome) override {
    wait_all();
    return store_.score(report, score, drops, outcome);
  }
  std::optional<std::size_t> held_entries() const override { return std::nullopt; }

 private:
  void wait_all() {
    if (pending_.size() > 1) ++groups_;
    for (auto& pending : pending_) {
      StoreDrops drops;
      EXPECT_TRUE(pending->wait(&drops).ok());
    }
    pending_.clear();
  }
  RedisKeptForecasts store_;
  std::vector<std::unique_ptr<PendingKeep>> pending_;
  std::size_t writes_ = 0;
  int& groups_;
};

TEST_F(RedisStoreTest, KeepsBegunTogetherKeepAsTheDefinition) {
  int groups = 0;
  kept_forecasts_parity::check_random_stores(
      [&]() -> std::unique_ptr<KeptForecasts> {
        flush();
        return std::make_unique<KeepsBegunInGroups>(*client_, &groups);
      },
      8);
  EXPECT_GT(groups, 10) << "too few keeps went together to show anything";
}

// The keeps a thread begins before it waits on one go in one round trip; one destroyed
// unwaited is kept all the same.
TEST_F(RedisStoreTest, KeepsBegunTogetherGoInOneRoundTrip) {
  prometheus::Registry registry;
  RedisStoreMetrics metrics(registry);
  RedisClient client(options_for(server_->port()), &metrics, nullptr);
  RedisKeptForecasts store(client, std::chrono::hours(1));
  const auto keeps_sent = [&registry] {
    for (const auto& family : registry.Collect()) {
      if (family.name != "tsserve_series_store_seconds") continue;
      for (const auto& metric : family.metric) {
        for (const auto& label : metric.label) {
          if (label.value == "forecast_keep") return metric.histogram.sample_count;
        }
      }
    }
    return std::uint64_t{0};
  };
  std::vector<std::unique_ptr<PendingKeep>> pending;
  for (const std::string key : {"a", "b", "c", "a"}) {
    IssuedForecast forecast;
    forecast.series_key = key;
    forecast.model = "m";
    forecast.version = "1";
    forecast.variable_names = {"x"};
    forecast.times = {10, 20};
    forecast.values = {1.0F, 2.0F};
    pending.push_back(store.begin_keep(forecast));
  }
  EXPECT_EQ(keeps_sent(), 0u) << "nothing is sent before a wait";
  pending.pop_back();  // destroyed unwaited: sends the group
  EXPECT_EQ(keeps_sent(), 1u);
  for (auto& keep : pending) {
    StoreDrops drops;
    EXPECT_TRUE(keep->wait(&drops).ok());
  }
  EXPECT_EQ(keeps_sent(), 1u) << "the four keeps went in one round trip";
  // All four were kept: key a's two forecasts both score its actual at time 10.
  ActualsReport report;
  report.series_key = "a";
  report.variable_names = {"x"};
  report.timestamps = {10};
  report.values = {1.5};
  ActualsOutcome outcome;
  StoreDrops drops;
  ASSERT_TRUE(store.score(report, [](const ScoredPoint&) {}, &drops, &outcome).ok());
  EXPECT_EQ(outcome.matched, 2);
}

// Keeps begun together at a Redis that forgot the scripts (SCRIPT FLUSH) ran nothing, so
// each is sent again alone and kept once.
TEST_F(RedisStoreTest, KeepsBegunTogetherAtARedisThatForgotTheScriptsAreKeptOnce) {
  RedisKeptForecasts store(*client_, std::chrono::hours(1));
  IssuedForecast forecast;
  forecast.series_key = "a";
  forecast.model = "m";
  forecast.version = "1";
  forecast.variable_names = {"x"};
  forecast.times = {10, 20};
  forecast.values = {1.0F, 2.0F};
  StoreDrops drops;
  ASSERT_TRUE(store.keep(forecast, &drops).ok());  // the scripts are loaded
  std::vector<RedisReply> replies;
  ASSERT_TRUE(client_->run("flush", {{"SCRIPT", "FLUSH"}}, &replies).ok());
  std::vector<std::unique_ptr<PendingKeep>> pending;
  pending.push_back(store.begin_keep(forecast));
  pending.push_back(store.begin_keep(forecast));
  for (auto& keep : pending) EXPECT_TRUE(keep->wait(&drops).ok());
  ActualsReport report;
  report.series_key = "a";
  report.variable_names = {"x"};
  report.timestamps = {10};
  report.values = {1.5};
  ActualsOutcome outcome;
  ASSERT_TRUE(store.score(report, [](const ScoredPoint&) {}, &drops, &outcome).ok());
  EXPECT_EQ(outcome.matched, 3);  // three forecasts, each kept once
}

// Calibrated bands (the forecast +- widths) are kept as the widths, once for every forecast
// that shares them, and scored with the very bounds the forecast carried.
TEST_F(RedisStoreTest, CalibratedBandsAreKeptOnceAsWidths) {
  RedisKeptForecasts store(*client_, std::chrono::hours(1));
  const std::vector<double> widths = {0.5, 1.0 / 3.0, 2.25, 0.1};  // K = 2 variables, F = 2
  for (int i = 0; i < 2; ++i) {
    IssuedForecast forecast;
    forecast.series_key = "cal";
    forecast.model = "m";
    forecast.version = "1";
    forecast.variable_names = {"a", "b"};
    forecast.times = {100 + 10 * i, 110 + 10 * i};
    forecast.values = {1.5F + static_cast<float>(i), -2.0F, 0.125F, 7.0F};
    forecast.bands.push_back(band_around(0.9, forecast.values, widths));
    forecast.band_widths.push_back(widths);
    StoreDrops drops;
    ASSERT_TRUE(store.keep(forecast, &drops).ok());
  }
  std::vector<RedisReply> replies;
  ASSERT_TRUE(client_->run("scan", {{"KEYS", "tsserve:fw:*"}, {"KEYS", "tsserve:f:*"}}, &replies)
                  .ok());
  ASSERT_EQ(replies[0].elements.size(), 1U) << "one widths key for the two forecasts";
  ASSERT_EQ(replies[1].elements.size(), 2U);
  ASSERT_TRUE(client_->run("get", {{"GET", replies[1].elements[0].text}}, &replies).ok());
  ForecastMeta meta;
  std::string body;
  ASSERT_TRUE(decode_forecast(replies[0].text, &meta, &body).ok());
  EXPECT_FALSE(meta.widths_id.empty());
  EXPECT_EQ(body.size(), 2U * 2U * 4U) << "a body of values, no bounds";

  ActualsReport report;
  report.series_key = "cal";
  report.variable_names = {"a", "b"};
  report.timestamps = {110};
  report.values = {1.0, 1.0};
  std::vector<std::vector<float>> bounds;
  ActualsOutcome outcome;
  StoreDrops drops;
  ASSERT_TRUE(store
                  .score(report,
                         [&bounds](const ScoredPoint& p) {
                           bounds.push_back({p.bands.at(0).lower, p.bands.at(0).upper});
                         },
                         &drops, &outcome)
                  .ok());
  // Time 110: step 2 of the first forecast, step 1 of the second, each variable.
  const std::vector<std::vector<float>> want = {
      {band_lower(-2.0F, 1.0 / 3.0), band_upper(-2.0F, 1.0 / 3.0)},
      {band_lower(2.5F, 0.5), band_upper(2.5F, 0.5)},
      {band_lower(7.0F, 0.1), band_upper(7.0F, 0.1)},
      {band_lower(0.125F, 2.25), band_upper(0.125F, 2.25)}};
  EXPECT_EQ(outcome.matched, 4);
  EXPECT_EQ(bounds, want);
}

// hourly points of N variables from `start`, values from `random`.
SeriesAppend points(const std::string& key, int64_t start, int64_t count, int64_t variables,
                    std::mt19937* random) {
  SeriesAppend append;
  append.series_key = key;
  append.binding.model = "m";
  append.binding.variables = variables;
  append.keep_points = 12;
  for (int64_t i = 0; i < count; ++i) append.timestamps.push_back(start + 3600 * i);
  std::uniform_real_distribution<float> value(-10, 10);
  for (int64_t i = 0; i < count * variables; ++i) append.values.push_back(value(*random));
  return append;
}

// Three replicas (three stores on one Redis, each remembering what it saw) take the calls
// in random turns, so an append starts from a stale state as often as from a fresh one.
TEST_F(RedisStoreTest, WindowsAnswerAsTheInProcessStore) {
  MemorySeriesStore memory(SeriesStoreLimits{1000, 1u << 30});
  RedisSeriesStore one(*client_, 1u << 30, std::chrono::hours(1));
  RedisSeriesStore two(*client_, 1u << 30, std::chrono::hours(1));
  RedisSeriesStore three(*client_, 1u << 30, std::chrono::hours(1));
  RedisSeriesStore* const replicas[] = {&one, &two, &three};
  std::mt19937 random(7);
  const auto pick = [&random](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  int accepted = 0, refused = 0;
  for (int call = 0; call < 600; ++call) {
    const std::string key = "k" + std::to_string(pick(0, 3));
    // Mostly on the grid after the key's last point; sometimes a repeat, a gap, an
    // irregular step, another N, another model, a value that is not finite, another
    // window length (the ring written whole) or more points than the window keeps.
    std::optional<SeriesBinding> held;
    ASSERT_TRUE(memory.binding(key, &held).ok());
    SeriesWindow now;
    int64_t start = 1'700'000'000;
    if (held) {
      ASSERT_TRUE(memory.append(points(key, 0, 0, 1, &random), nullptr, nullptr).code() ==
                  StatusCode::kInvalidArgument);  // T = 0 is refused, store unchanged
    }
    std::vector<SeriesWindow> windows = memory.snapshot();
    for (const SeriesWindow& window : windows) {
      if (window.series_key == key) start = window.last_timestamp + 3600;
    }
    const int twist = pick(0, 9);
    if (twist == 0) start -= 3600;      // a repeat
    if (twist == 1) start += 7200;      // a gap
    if (twist == 2) start += 1800;      // irregular
    SeriesAppend append =
        points(key, start, twist == 7 ? 15 : pick(1, 5), twist == 3 ? 3 : 2, &random);
    if (twist == 4) append.binding.model = "other";
    if (twist == 5) append.values[0] = std::nanf("");
    if (twist == 6) append.keep_points = 8;
    RedisSeriesStore& shared = *replicas[pick(0, 2)];
    SeriesWindow from_memory, from_redis;
    const Status a = memory.append(append, &from_memory, nullptr);
    const Status b = shared.append(append, &from_redis, nullptr);
    ASSERT_EQ(a.code(), b.code()) << "call " << call << ": " << a.message() << " | " << b.message();
    ASSERT_EQ(a.message(), b.message()) << "call " << call;
    if (a.ok()) {
      ++accepted;
      ASSERT_EQ(from_memory, from_redis) << "call " << call;
    } else {
      ++refused;
    }
    std::optional<SeriesBinding> x, y;
    ASSERT_TRUE(memory.binding(key, &x).ok());
    ASSERT_TRUE(replicas[pick(0, 2)]->binding(key, &y).ok());
    ASSERT_EQ(x, y);
  }
  // Both kinds of answer were compared, not one.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 30);
}

// Two clients (two replicas) append the same 300 hourly timestamps to one key, one point
// a call, at once. Returns (calls accepted, the window's accepted_total, points held).
struct RaceResult {
  int accepted = 0;
  int64_t accepted_total = 0;
  int64_t points = 0;
};
RaceResult race(int port, bool compare_and_set, int steps) {
  RedisClient first(options_for(port), nullptr, nullptr), second(options_for(port), nullptr, nullptr);
  RedisSeriesStore a(first, 1u << 30, std::chrono::hours(1), compare_and_set);
  RedisSeriesStore b(second, 1u << 30, std::chrono::hours(1), compare_and_set);
  std::atomic<int> accepted{0};
  const auto writer = [&](RedisSeriesStore* store, float value) {
    for (int i = 0; i < steps; ++i) {
      SeriesAppend append;
      append.series_key = "raced";
      append.binding.model = "m";
      append.binding.variables = 1;
      append.keep_points = steps;
      append.timestamps = {1'700'000'000 + 3600 * int64_t{i}};
      append.values = {value};
      if (store->append(append, nullptr, nullptr).ok()) ++accepted;
    }
  };
  std::thread one(writer, &a, 1.0F), two(writer, &b, 2.0F);
  one.join();
  two.join();
  RaceResult result;
  result.accepted = accepted.load();
  RedisClient reader(options_for(port), nullptr, nullptr);
  std::vector<RedisReply> replies;
  if (!reader.run("read",
                  {{"HGET", redis_window_key("raced"), "head"},
                   {"GET", redis_window_ring_key("raced")}},
                  &replies)
           .ok()) {
    return result;
  }
  SeriesWindow window;
  int64_t capacity = 0;
  if (decode_window(replies[0].text, replies[1].text, &window, &capacity).ok()) {
    result.accepted_total = window.accepted_total;
    result.points = window.points();
  }
  return result;
}

TEST_F(RedisStoreTest, TwoWritersOfOneKeyAcceptEachPointOnce) {
  constexpr int kSteps = 300;
  const RaceResult result = race(server_->port(), true, kSteps);
  EXPECT_EQ(result.accepted, kSteps) << "each timestamp accepted by exactly one writer";
  EXPECT_EQ(result.accepted_total, kSteps);
  EXPECT_EQ(result.points, kSteps);
}

// The plant: without the compare-and-set, the same race acknowledges points the window
// does not hold (both writers accept one timestamp, or one overwrites the other's point).
TEST_F(RedisStoreTest, WithoutCompareAndSetTheRaceLosesAcknowledgedPoints) {
  constexpr int kSteps = 300;
  bool lost = false;
  for (int attempt = 0; attempt < 10 && !lost; ++attempt) {
    flush();
    const RaceResult result = race(server_->port(), false, kSteps);
    lost = result.accepted != result.accepted_total || result.accepted > kSteps;
  }
  EXPECT_TRUE(lost) << "10 races of 2 x 300 appends without the compare-and-set lost nothing: "
                       "the race test above could not tell the compare-and-set matters";
}

// Scripts travel as their SHA1 once loaded; a Redis that forgot them (SCRIPT FLUSH) gets
// a lone script's text again at once, and a pipeline fails UNAVAILABLE naming why, once.
TEST_F(RedisStoreTest, ScriptsGoByTheirSha1AndARedisThatForgotThemGetsThemAgain) {
  const RedisCommand script{"EVAL", "return tonumber(ARGV[1]) + 1", "0", "41"};
  std::vector<RedisReply> replies;
  ASSERT_TRUE(client_->run("script", {script}, &replies).ok());
  EXPECT_EQ(replies.at(0).integer, 42);
  RedisClient other(options_for(server_->port()), nullptr, nullptr);
  ASSERT_TRUE(other.run("stats", {{"INFO", "commandstats"}}, &replies).ok());
  const std::string before = replies.at(0).text;
  ASSERT_TRUE(client_->run("script", {script}, &replies).ok());
  ASSERT_TRUE(other.run("stats", {{"INFO", "commandstats"}}, &replies).ok());
  EXPECT_NE(replies.at(0).text.find("cmdstat_evalsha:calls=1,"), std::string::npos)
      << "the second call went as EVALSHA: " << replies.at(0).text << " (before: " << before << ")";

  ASSERT_TRUE(other.run("flush", {{"SCRIPT", "FLUSH"}}, &replies).ok());
  ASSERT_TRUE(client_->run("script", {script}, &replies).ok()) << "a lone script is sent again";
  EXPECT_EQ(replies.at(0).integer, 42);
  ASSERT_TRUE(other.run("flush", {{"SCRIPT", "FLUSH"}}, &replies).ok());
  const Status pipelined = client_->run("script", {script, script}, &replies);
  EXPECT_EQ(pipelined.code(), StatusCode::kUnavailable);
  EXPECT_NE(pipelined.message().find("no longer holds the server's scripts"), std::string::npos)
      << pipelined.message();
  ASSERT_TRUE(client_->run("script", {script, script}, &replies).ok()) << "loaded again";
  EXPECT_EQ(replies.at(1).integer, 42);
}

TEST_F(RedisStoreTest, AStoreThatIsDownIsUnavailableNamingItAndUsedAgainWhenBack) {
  const int port = free_port();
  std::vector<bool> heard;
  RedisClient client(options_for(port), nullptr, [&heard](bool reachable) { heard.push_back(reachable); });
  RedisSeriesStore store(client, 1u << 30, std::chrono::hours(1));
  std::mt19937 random(1);
  const auto start = std::chrono::steady_clock::now();
  const Status down = store.append(points("k", 1'700'000'000, 3, 2, &random), nullptr, nullptr);
  EXPECT_EQ(down.code(), StatusCode::kUnavailable);
  EXPECT_EQ(down.message().rfind("series store redis://127.0.0.1:" + std::to_string(port) + "/0: ", 0), 0u)
      << down.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "bounded by the timeout";
  EXPECT_EQ(heard, std::vector<bool>{false});

  RedisServer back(port);
  back.start();
  const Status up = store.append(points("k", 1'700'000'000, 3, 2, &random), nullptr, nullptr);
  EXPECT_TRUE(up.ok()) << up.message();
  EXPECT_EQ(heard, (std::vector<bool>{false, true}));
  back.stop();
  const Status lost = store.append(points("k", 1'700'000'000 + 3 * 3600, 1, 2, &random), nullptr, nullptr);
  EXPECT_EQ(lost.code(), StatusCode::kUnavailable) << "a pooled connection to a stopped store";
}

}  // namespace
}  // namespace tsserve::server
