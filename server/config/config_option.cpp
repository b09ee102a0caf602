#include "config_option.h"

#include "server/config/series_store_url.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

// Why the batching defaults are what they are (the measurements are in BENCHMARKS.md):
//  - preferred_batch_rows 0 (= max_batch_rows): below max_batch_rows a worker leaves the
//    rest of the queue to the next free one; with several instances that shares the work
//    and cuts the tail latency (BENCHMARKS.md, "--preferred-batch-rows"), so it is worth
//    setting there; with one instance it changes nothing.
//  - max_queue_delay_ms 0: on CPU the model's cost per row is flat in the batch size, so
//    waiting for company only adds latency and gains no throughput. A GPU, where wide
//    batches are cheaper per row, may want a few milliseconds.
//  - max_queue_wait_ms 0 (off): max_queue_rows alone bounds the queue, in rows; a bound in
//    time depends on the model's speed, which the operator knows and the default does not.
//  - idle_spin_us 1000: a forward that starts on a thread that has just slept runs slower
//    (model_bench BM_FusedForwardAfterIdle; BENCHMARKS.md), and at low load every batch
//    starts so. 1 ms covers a loopback or LAN round trip between a client's calls; one
//    worker per model version spins at a time and yields to any runnable thread, and an
//    idle server stops spinning 1 ms after its last batch.

namespace tsserve::server::config_detail {
namespace {

using nlohmann::json;

// A check returns OK or INVALID_ARGUMENT whose message is the tail after the source:
// ": '...' is not ..." or " must be ...".
using TextCheck = std::function<Status(const std::string& value)>;

// `problem` (a tail, as a TextCheck's) told of `source`, e.g. "--threads must be ...".
Status of_source(const std::string& source, const Status& problem) {
  if (problem.ok()) return problem;
  return invalid_argument(source + problem.message());
}

struct Meta {
  const char* name;
  const char* group;
  const char* type_name;
  const char* help;
};

ConfigOption start(const Meta& meta) {
  ConfigOption option;
  option.name = meta.name;
  option.group = meta.group;
  option.type_name = meta.type_name;
  option.help = meta.help;
  return option;
}

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::optional<std::int64_t> parse_integer(const std::string& text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> parse_number(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::optional<bool> parse_bool(const std::string& text) {
  for (const char* yes : {"true", "1", "yes", "on"}) {
    if (text == yes) return true;
  }
  for (const char* no : {"false", "0", "no", "off"}) {
    if (text == no) return false;
  }
  return std::nullopt;
}

// OK, or the tail saying which bound `value` breaks.
template <typename T>
Status check_range(T value, T min, T max) {
  if (value < min)
    return invalid_argument(" must be at least " + json(min).dump() + " (got " +
                            json(value).dump() + ")");
  if (value > max)
    return invalid_argument(" must be at most " + json(max).dump() + " (got " + json(value).dump() +
                            ")");
  return Status();
}

// `field` maps a ServerConfig (const or not) to the member, e.g.
// [](auto& c) -> auto& { return c.model.threads; }.
template <typename Field>
ConfigOption integer_option(const Meta& meta, Field field, std::int64_t min,
                            std::int64_t max = std::numeric_limits<int>::max()) {
  ConfigOption option = start(meta);
  auto store = [field, min, max](ServerConfig& config, std::int64_t value,
                                 const std::string& source) -> Status {
    TSSERVE_RETURN_IF_ERROR(of_source(source, check_range(value, min, max)));
    using Value = std::remove_reference_t<decltype(field(config))>;
    field(config) = static_cast<Value>(value);
    return Status();
  };
  option.set_from_text = [store](ServerConfig& config, const std::string& text,
                                 const std::string& source) -> Status {
    std::optional<std::int64_t> value = parse_integer(text);
    if (!value) return invalid_argument(source + ": " + quoted(text) + " is not an integer");
    return store(config, *value, source);
  };
  option.set_from_json = [store](ServerConfig& config, const json& value,
                                 const std::string& source) -> Status {
    if (value.is_number_integer() &&
        !(value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX)) {
      return store(config, value.get<std::int64_t>(), source);
    }
    return invalid_argument(source + ": expected an integer, got " + value.dump());
  };
  option.get = [field](const ServerConfig& config) { return json(field(config)); };
  return option;
}

// An integer in [min, max], or "auto" (stored as kAuto, resolved at start from the
// machine: server/config/parallelism.h).
template <typename Field>
ConfigOption integer_or_auto_option(const Meta& meta, Field field, std::int64_t min,
                                    std::int64_t max) {
  ConfigOption option = integer_option(meta, field, min, max);
  auto set_integer_text = option.set_from_text;
  auto set_integer_json = option.set_from_json;
  option.set_from_text = [field, set_integer_text](ServerConfig& config, const std::string& text,
                                                   const std::string& source) -> Status {
    if (text == "auto") {
      field(config) = kAuto;
      return Status();
    }
    if (!parse_integer(text)) {
      return invalid_argument(source + ": " + quoted(text) + " is not an integer or auto");
    }
    return set_integer_text(config, text, source);
  };
  option.set_from_json = [field, set_integer_json](ServerConfig& config, const json& value,
                                                   const std::string& source) -> Status {
    if (value.is_string() && value.get<std::string>() == "auto") {
      field(config) = kAuto;
      return Status();
    }
    if (value.is_string()) {
      return invalid_argument(source + ": expected an integer, got " + value.dump() +
                              " or \"auto\"");
    }
    return set_integer_json(config, value, source);
  };
  option.get = [field](const ServerConfig& config) {
    return field(config) == kAuto ? json("auto") : json(field(config));
  };
  return option;
}

template <typename Field>
ConfigOption number_option(const Meta& meta, Field field, double min,
                           double max = std::numeric_limits<double>::max()) {
  ConfigOption option = start(meta);
  auto store = [field, min, max](ServerConfig& config, double value,
                                 const std::string& source) -> Status {
    TSSERVE_RETURN_IF_ERROR(of_source(source, check_range(value, min, max)));
    field(config) = value;
    return Status();
  };
  option.set_from_text = [store](ServerConfig& config, const std::string& text,
                                 const std::string& source) -> Status {
    std::optional<double> value = parse_number(text);
    if (!value) return invalid_argument(source + ": " + quoted(text) + " is not a number");
    return store(config, *value, source);
  };
  option.set_from_json = [store](ServerConfig& config, const json& value,
                                 const std::string& source) -> Status {
    if (!value.is_number())
      return invalid_argument(source + ": expected a number, got " + value.dump());
    return store(config, value.get<double>(), source);
  };
  option.get = [field](const ServerConfig& config) { return json(field(config)); };
  return option;
}

template <typename Field>
ConfigOption bool_option(const Meta& meta, Field field) {
  ConfigOption option = start(meta);
  option.set_from_text = [field](ServerConfig& config, const std::string& text,
                                 const std::string& source) -> Status {
    std::optional<bool> value = parse_bool(text);
    if (!value) {
      return invalid_argument(source + ": " + quoted(text) +
                              " is not a boolean (expected true, false, 1, 0, yes, no, on or off)");
    }
    field(config) = *value;
    return Status();
  };
  option.set_from_json = [field](ServerConfig& config, const json& value,
                                 const std::string& source) -> Status {
    if (!value.is_boolean())
      return invalid_argument(source + ": expected true or false, got " + value.dump());
    field(config) = value.get<bool>();
    return Status();
  };
  option.get = [field](const ServerConfig& config) { return json(field(config)); };
  return option;
}

template <typename Field>
ConfigOption text_option(const Meta& meta, Field field, TextCheck check = nullptr) {
  ConfigOption option = start(meta);
  option.set_from_text = [field, check = std::move(check)](ServerConfig& config,
                                                           const std::string& text,
                                                           const std::string& source) -> Status {
    if (check) TSSERVE_RETURN_IF_ERROR(of_source(source, check(text)));
    field(config) = text;
    return Status();
  };
  auto from_text = option.set_from_text;
  option.set_from_json = [from_text](ServerConfig& config, const json& value,
                                     const std::string& source) -> Status {
    if (!value.is_string())
      return invalid_argument(source + ": expected a string, got " + value.dump());
    return from_text(config, value.get<std::string>(), source);
  };
  option.get = [field](const ServerConfig& config) { return json(field(config)); };
  return option;
}

// `choices` lists the accepted values; "" among them is described by `empty_means`.
TextCheck one_of(std::vector<std::string> choices, std::string empty_means = "") {
  return [choices = std::move(choices),
          empty_means = std::move(empty_means)](const std::string& value) -> Status {
    if (std::find(choices.begin(), choices.end(), value) != choices.end()) return Status();
    std::string expected;
    for (const std::string& choice : choices) {
      if (choice.empty()) continue;
      expected += (expected.empty() ? "" : ", ") + choice;
    }
    if (!empty_means.empty()) expected += ", or \"\" for " + empty_means;
    return invalid_argument(": " + quoted(value) + " is not valid (expected " + expected + ")");
  };
}

// "" (the option's "not set") and `names`.
std::vector<std::string> with_empty(std::initializer_list<const char*> names) {
  std::vector<std::string> choices{""};
  choices.insert(choices.end(), names.begin(), names.end());
  return choices;
}

Status check_device(const std::string& value) {
  if (value == "cpu" || value == "cuda" || value == "auto") return Status();
  const std::string prefix = "cuda:";
  // Digits only: from_chars alone would take "cuda:-0".
  if (value.compare(0, prefix.size(), prefix) == 0 &&
      value.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
    std::optional<std::int64_t> index = parse_integer(value.substr(prefix.size()));
    if (index && *index >= 0 && *index < 1024) return Status();
  }
  return invalid_argument(": " + quoted(value) +
                          " is not a device (expected cpu, cuda, cuda:N or auto)");
}

// HOST:PORT with a port of one to five decimal digits in 0..65535. The digit count is
// bounded so that "0009000" is refused rather than read as 9000: a port written that way
// is a typo more often than a choice, and the listener's own parser need not agree.
bool is_host_port(const std::string& value) {
  const std::size_t colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  const std::string digits = value.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return false;
  }
  std::optional<std::int64_t> port = parse_integer(digits);
  return port && *port <= 65535;
}

Status check_grpc_address(const std::string& value) {
  if (is_host_port(value)) return Status();
  if (value.compare(0, 5, "unix:") == 0 && value.size() > 5) return Status();
  return invalid_argument(
      ": " + quoted(value) +
      " is not an address (expected HOST:PORT, e.g. 0.0.0.0:50051, or unix:PATH)");
}

Status check_metrics_address(const std::string& value) {
  if (value.empty() || is_host_port(value)) return Status();
  return invalid_argument(
      ": " + quoted(value) +
      " is not an address (expected HOST:PORT, e.g. 0.0.0.0:9464, or \"\" to disable "
      "metrics)");
}

Status check_http_address(const std::string& value) {
  if (value.empty() || is_host_port(value)) return Status();
  return invalid_argument(
      ": " + quoted(value) +
      " is not an address (expected HOST:PORT, e.g. 0.0.0.0:8000, or \"\" to turn HTTP off)");
}

Status check_not_empty(const std::string& value) {
  return value.empty() ? invalid_argument(": must not be empty") : Status();
}

Status check_series_store_url(const std::string& value) {
  if (value.empty()) return Status();
  SeriesStoreUrl url;
  const Status parsed = parse_series_store_url(value, &url);
  return parsed.ok() ? parsed : invalid_argument(": " + parsed.message());
}

std::vector<ConfigOption> make_options() {
  constexpr int kMaxInt = std::numeric_limits<int>::max();
  // Durations become std::chrono time in int64 nanoseconds (about 292 years, and the drain
  // adds them to "now"): 1e300 ms turned into a negative queue delay. A day is far beyond
  // any useful wait and far from overflowing.
  constexpr double kOneDaySeconds = 86'400;
  std::vector<ConfigOption> options;
  // Model
  options.push_back(text_option(
      {"model", "Model", "FILE", "Checkpoint to serve (torch.save state_dict or safetensors)"},
      [](auto& c) -> auto& { return c.model.model; }, check_not_empty));
  options.push_back(text_option(
      {"model_repository", "Model", "DIR",
       "Serve every model of DIR/<name>/<version>/ (docs/model-repository.md); \"\" = --model "
       "alone"},
      [](auto& c) -> auto& { return c.repository.model_repository; }));
  options.push_back(number_option(
      {"repository_poll_s", "Model", "SECONDS",
       "How often the model repository is scanned for changes; 0 = never"},
      [](auto& c) -> auto& { return c.repository.repository_poll_s; }, 0.0, kOneDaySeconds));
  options.push_back(integer_option(
      {"max_loaded_bytes", "Model", "BYTES",
       "Resident bytes of all loaded model versions at most; 0 = no bound"},
      [](auto& c) -> auto& { return c.repository.max_loaded_bytes; }, 0, INT64_MAX));
  options.push_back(text_option(
      {"model_config", "Model", "FILE",
       "Model config JSON; \"\" = the .json beside the checkpoint"},
      [](auto& c) -> auto& { return c.model.model_config; }));
  options.push_back(text_option(
      {"attention", "Model", "KIND", "Attention: full | prob; \"\" = as the model config says"},
      [](auto& c) -> auto& { return c.model.attention; },
      one_of(with_empty(kAttentionKinds), "the model config's choice")));
  options.push_back(integer_option(
      {"factor", "Model", "INT", "ProbSparse sampling factor; 0 = as the model config says"},
      [](auto& c) -> auto& { return c.model.factor; }, 0));
  options.push_back(text_option(
      {"prob_layout", "Model", "LAYOUT",
       "ProbSparse output layout: canonical | tslib; \"\" = as the model config says"},
      [](auto& c) -> auto& { return c.model.prob_layout; },
      one_of(with_empty(kProbLayouts), "the model config's choice")));
  options.push_back(text_option(
      {"device", "Model", "DEVICE", "cpu | cuda | cuda:N | auto (CUDA when available)"},
      [](auto& c) -> auto& { return c.model.device; }, check_device));
  options.push_back(text_option(
      {"cpu_kernels", "Model", "KERNELS",
       "Forward on the CPU: fused (tsserve's own kernels for PatchTST and iTransformer "
       "forecasts, their attention maps and Encode; Informer, Transformer, an iTransformer "
       "with ProbSparse attention and GPUs use LibTorch) | torch (LibTorch's operators)"},
      [](auto& c) -> auto& { return c.model.cpu_kernels; }, one_of({"fused", "torch"})));
  options.push_back(integer_or_auto_option(
      {"threads", "Model", "INT|auto",
       "LibTorch intra-op threads per process; auto = 1 (instances use the cores)"},
      [](auto& c) -> auto& { return c.model.threads; }, 1, 1024));
  options.push_back(integer_or_auto_option(
      {"instances", "Model", "INT|auto",
       "Model instances, one batcher worker each; auto = one per CPU core this process may "
       "use (1 on a GPU); each adds a worker thread and its buffers (more with torch)"},
      [](auto& c) -> auto& { return c.model.instances; }, 1, 1024));
  options.push_back(bool_option(
      {"batch_invariant", "Model", "BOOL",
       "Bitwise-identical answers whatever else is in the batch, on every CPU (LibTorch's "
       "operators then run each row or sample as a pass of its own; false: the batch at once, "
       "faster, within 1e-6; a GPU always runs it at once)"},
      [](auto& c) -> auto& { return c.model.batch_invariant; }));
  // Batching
  options.push_back(integer_option(
      {"max_batch_rows", "Batching", "INT", "Series rows in one forward pass at most"},
      [](auto& c) -> auto& { return c.batching.max_batch_rows; }, 1));
  options.push_back(integer_option(
      {"preferred_batch_rows", "Batching", "INT",
       "A worker closes its batch at this many rows and leaves the rest queued for the next "
       "free instance (a larger request still runs, alone); 0 = max_batch_rows"},
      [](auto& c) -> auto& { return c.batching.preferred_batch_rows; }, 0));
  options.push_back(number_option(
      {"max_queue_delay_ms", "Batching", "MS",
       "How long the oldest queued request waits for company (milliseconds); 0 = a free "
       "worker takes what is queued at once"},
      [](auto& c) -> auto& { return c.batching.max_queue_delay_ms; }, 0.0, kOneDaySeconds * 1000));
  options.push_back(integer_option(
      {"max_queue_rows", "Batching", "INT", "Rows queued at most; more get RESOURCE_EXHAUSTED"},
      [](auto& c) -> auto& { return c.batching.max_queue_rows; }, 1));
  options.push_back(number_option(
      {"max_queue_wait_ms", "Batching", "MS",
       "Refuse (RESOURCE_EXHAUSTED) a request expected to wait longer in the queue, from the "
       "recent model time per row (milliseconds); 0 = no bound in time"},
      [](auto& c) -> auto& { return c.batching.max_queue_wait_ms; }, 0.0, kOneDaySeconds * 1000));
  options.push_back(integer_option(
      {"max_encode_tokens", "Batching", "INT",
       "Patch tokens in one Encode request at most; a longer one gets INVALID_ARGUMENT"},
      [](auto& c) -> auto& { return c.batching.max_encode_tokens; }, 1));
  options.push_back(integer_option(
      {"idle_spin_us", "Batching", "US",
       "After its last batch, how long one idle worker polls the queue before it sleeps "
       "(microseconds): a forward on a thread that just slept runs slower; 0 = sleep at once"},
      [](auto& c) -> auto& { return c.batching.idle_spin_us; }, 0, 1000000));
  // Server
  options.push_back(text_option(
      {"grpc_address", "Server", "HOST:PORT", "gRPC listen address (port 0 = any free port)"},
      [](auto& c) -> auto& { return c.server.grpc_address; }, check_grpc_address));
  options.push_back(bool_option(
      {"grpc_reuse_port", "Server", "BOOL",
       "Share the gRPC port with other processes (SO_REUSEPORT; off: a port in use is a "
       "start-up error)"},
      [](auto& c) -> auto& { return c.server.grpc_reuse_port; }));
  options.push_back(text_option(
      {"http_address", "Server", "HOST:PORT",
       "HTTP/JSON listen address (the Open Inference Protocol's REST binding, the JSON API "
       "/v1 and the console); \"\" turns it off"},
      [](auto& c) -> auto& { return c.server.http_address; }, check_http_address));
  options.push_back(integer_option(
      {"http_threads", "Server", "N", "Threads serving HTTP connections"},
      [](auto& c) -> auto& { return c.server.http_threads; }, 1, 256));
  options.push_back(text_option(
      {"http_cors_origins", "Server", "ORIGINS",
       "Origins whose browser apps may call the HTTP door (CORS), comma-separated; \"*\" any, "
       "\"\" none"},
      [](auto& c) -> auto& { return c.server.http_cors_origins; }));
  options.push_back(bool_option(
      {"http_console", "Server", "BOOL",
       "Serve the browser console for modellers at /console/ on the HTTP address (false: off)"},
      [](auto& c) -> auto& { return c.server.http_console; }));
  options.push_back(text_option(
      {"http_console_sample", "Server", "FILE",
       "A CSV the console offers as its sample window (/console/sample.csv, e.g. ETTh1.csv); "
       "\"\" none"},
      [](auto& c) -> auto& { return c.server.http_console_sample; }));
  options.push_back(integer_option(
      {"http_max_connections", "Server", "N",
       "HTTP connections open at once; at the cap an idle one is closed to make room, or "
       "else the new one is answered 503"},
      [](auto& c) -> auto& { return c.server.http_max_connections; }, 1, 1000000));
  options.push_back(bool_option(
      {"http_repository_control", "Server", "BOOL",
       "Allow loading and unloading models over HTTP (/v2/repository/models/M/load|unload) "
       "without a token (with a token set, its holders may)"},
      [](auto& c) -> auto& { return c.server.http_repository_control; }));
  options.push_back(text_option(
      {"http_allowed_hosts", "Server", "HOSTS",
       "Host names the HTTP door answers to, comma-separated (against DNS rebinding; health "
       "checks pass); \"\" any"},
      [](auto& c) -> auto& { return c.server.http_allowed_hosts; }));
  options.push_back(text_option(
      {"metrics_address", "Server", "HOST:PORT",
       "Prometheus /metrics listen address; \"\" disables metrics"},
      [](auto& c) -> auto& { return c.server.metrics_address; }, check_metrics_address));
  options.push_back(integer_option(
      {"max_message_bytes", "Server", "BYTES", "Largest gRPC message received or sent"},
      [](auto& c) -> auto& { return c.server.max_message_bytes; }, 1024, kMaxInt));
  options.push_back(number_option(
      {"drain_timeout_s", "Server", "SECONDS",
       "On SIGTERM, how long admitted requests may run; those still queued then are answered "
       "UNAVAILABLE (a running batch finishes) and the exit code is 1"},
      [](auto& c) -> auto& { return c.server.drain_timeout_s; }, 0.0, kOneDaySeconds));
  options.push_back(text_option(
      {"tls_cert", "Server", "FILE", "Server certificate (PEM); \"\" = plaintext"},
      [](auto& c) -> auto& { return c.server.tls_cert; }));
  options.push_back(text_option(
      {"tls_key", "Server", "FILE", "Server private key (PEM)"},
      [](auto& c) -> auto& { return c.server.tls_key; }));
  options.push_back(text_option(
      {"tls_ca", "Server", "FILE", "CA (PEM) for client certificates; set = mutual TLS"},
      [](auto& c) -> auto& { return c.server.tls_ca; }));
  options.push_back(text_option(
      {"auth_token_file", "Server", "FILE",
       "File holding the bearer token clients must send; \"\" = no authentication"},
      [](auto& c) -> auto& { return c.server.auth_token_file; }));
  // Logging
  options.push_back(text_option(
      {"log_level", "Logging", "LEVEL", "trace | debug | info | warn | error"},
      [](auto& c) -> auto& { return c.logging.log_level; },
      one_of({"trace", "debug", "info", "warn", "error"})));
  options.push_back(text_option(
      {"log_format", "Logging", "FORMAT", "text | json (one JSON object per line)"},
      [](auto& c) -> auto& { return c.logging.log_format; }, one_of({"text", "json"})));
  // Accuracy
  options.push_back(integer_option(
      {"forecast_store_max_entries", "Accuracy", "INT",
       "Forecasts kept for ReportActuals (those with a series_key), over all keys; the least "
       "recently used go first"},
      [](auto& c) -> auto& { return c.accuracy.forecast_store_max_entries; }, 1));
  options.push_back(number_option(
      {"forecast_store_max_age_s", "Accuracy", "SECONDS",
       "A kept forecast is dropped this long after it was issued"},
      [](auto& c) -> auto& { return c.accuracy.forecast_store_max_age_s; }, 1.0,
      kOneDaySeconds * 366));
  // Live series
  options.push_back(integer_option(
      {"series_store_max_keys", "Live series", "INT",
       "Series keys whose window Observe keeps; the least recently observed go first"},
      [](auto& c) -> auto& { return c.live.series_store_max_keys; }, 1));
  options.push_back(integer_option(
      {"series_store_max_bytes", "Live series", "BYTES",
       "Bytes of series windows kept, over all keys; the least recently observed go first"},
      [](auto& c) -> auto& { return c.live.series_store_max_bytes; }, 4096, kMaxInt));
  options.push_back(text_option(
      {"series_store_dir", "Live series", "DIR",
       "Folder of the series windows' snapshot, read at start and written every "
       "--series-snapshot-s and on drain; \"\" = memory only"},
      [](auto& c) -> auto& { return c.live.series_store_dir; }));
  options.push_back(number_option(
      {"series_snapshot_s", "Live series", "SECONDS",
       "Seconds between two snapshots of the series windows"},
      [](auto& c) -> auto& { return c.live.series_snapshot_s; }, 1.0, kOneDaySeconds));
  options.push_back(text_option(
      {"series_store", "Live series", "URL",
       "Where live series windows and kept forecasts are held: \"\" = this process; "
       "redis://HOST:PORT[/DB] = a Redis every replica shares (docs/deployment.md)"},
      [](auto& c) -> auto& { return c.live.series_store; }, check_series_store_url));
  options.push_back(text_option(
      {"series_store_password_file", "Live series", "FILE",
       "File holding the shared series store's password (Redis AUTH); \"\" = none"},
      [](auto& c) -> auto& { return c.live.series_store_password_file; }));
  options.push_back(integer_option(
      {"series_store_timeout_ms", "Live series", "MS",
       "Bound on connecting to the shared series store and on each of its commands"},
      [](auto& c) -> auto& { return c.live.series_store_timeout_ms; }, 1, 60'000));
  options.push_back(integer_option(
      {"series_store_connections", "Live series", "INT",
       "Connections to the shared series store (each serves one call at a time)"},
      [](auto& c) -> auto& { return c.live.series_store_connections; }, 1, 1024));
  return options;
}

}  // namespace

std::string ConfigOption::flag() const {
  std::string flag = "--" + name;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

std::string ConfigOption::env_name() const {
  std::string env = "TSSERVE_" + name;
  std::transform(env.begin(), env.end(), env.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return env;
}

const std::vector<ConfigOption>& config_options() {
  static const std::vector<ConfigOption> options = make_options();
  return options;
}

const ConfigOption* find_config_option(std::string_view name) {
  for (const ConfigOption& option : config_options()) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

}  // namespace tsserve::server::config_detail
