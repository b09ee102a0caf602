#include "server/runtime/batch_processors.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstring>
#include <map>

#include "server/batching/request_task.h"

// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant (the fused kernels by construction, the
// LibTorch modules through the batch-invariant path), so each request's result is bitwise
// the one it would get alone; attention maps run on the asking requests' rows only. Encode batches are grouped by token count and each group runs as
// one [b, L, D] forward: padding to a common length would change the GEMM and softmax
// shapes and with them the last bits, so grouping keeps the same guarantee.

namespace tsserve::server {
namespace {

using Seconds = std::chrono::duration<double>;

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<Seconds>(to - from).count();
}

std::vector<float> copy_floats(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const float* data = c.data_ptr<float>();
  return std::vector<float>(data, data + c.numel());
}

// The attention maps a task asked for, cut from the batch's per-layer weights.
// weights[layer] is [R, H, P, P]; `first_row` is the task's first row in the batch.
std::vector<AttentionBlock> select_attention(const std::vector<at::Tensor>& weights,
                                             int64_t first_row, const AttentionSelection& want,
                                             const std::vector<int32_t>& variables) {
  std::vector<AttentionBlock> blocks;
  if (!want.enabled) return blocks;
  for (int32_t variable : variables) {
    for (int32_t layer : want.layers) {
      at::Tensor map = weights.at(static_cast<size_t>(layer))[first_row + variable];
      if (want.average_heads) map = map.mean(0);
      AttentionBlock block;
      block.layer = layer;
      block.variable = variable;
      block.heads_averaged = want.average_heads;
      block.shape = map.sizes().vec();
      block.weights = copy_floats(map);
      blocks.push_back(std::move(block));
    }
  }
  return blocks;
}

template <typename Task>
void finish_tasks(Batch& batch, double compute_seconds, BatchObserver* observer) {
  if (observer) observer->on_batch(batch.rows, compute_seconds);
  for (auto& base : batch.tasks) {
    auto& task = static_cast<Task&>(*base);
    task.output.queue_seconds = seconds_between(task.enqueued_at(), batch.started);
    task.output.compute_seconds = compute_seconds;
    task.output.batch_rows = static_cast<int32_t>(batch.rows);
    if (observer) observer->on_queue_wait(task.output.queue_seconds);
    task.complete(TaskStatus::ok());
  }
}

// The rows of the tasks that asked for attention maps, stacked, and where each such
// task's rows start among them (-1 for the others).
struct AttentionRows {
  at::Tensor rows;
  std::vector<int64_t> first_row;
};

AttentionRows attention_rows(const Batch& batch, const at::Tensor& rows) {
  AttentionRows out;
  std::vector<at::Tensor> parts;
  int64_t batch_row = 0;
  int64_t next = 0;
  for (const auto& base : batch.tasks) {
    const auto& input = static_cast<const ForecastTask&>(*base).input;
    out.first_row.push_back(input.attention.enabled ? next : -1);
    if (input.attention.enabled) {
      parts.push_back(rows.narrow(0, batch_row, input.series_rows));
      next += input.series_rows;
    }
    batch_row += input.series_rows;
  }
  if (!parts.empty()) out.rows = at::cat(parts);
  return out;
}

void run_forecast_batch(Batch& batch, const ModelRunner& runner, BatchObserver* observer) {
  const int64_t seq_len = runner.config().seq_len;
  const int64_t pred_len = runner.config().pred_len;
  at::Tensor rows = at::empty({static_cast<int64_t>(batch.rows), seq_len}, at::kFloat);
  {
    float* dst = rows.data_ptr<float>();
    for (const auto& base : batch.tasks) {
      const auto& input = static_cast<const ForecastTask&>(*base).input;
      std::memcpy(dst, input.rows.data(), input.rows.size() * sizeof(float));
      dst += input.rows.size();
    }
  }

  // Forecasts for every row from the serving kernels; maps, from the LibTorch modules,
  // only for the rows of tasks that asked. A row's forecast is thus computed the same way
  // whatever its batch holds.
  const auto start = std::chrono::steady_clock::now();
  const at::Tensor forecast_rows = runner.forecast(rows);
  const AttentionRows wanted = attention_rows(batch, rows);
  const std::vector<at::Tensor> maps =
      wanted.rows.defined() ? runner.attention_maps(wanted.rows) : std::vector<at::Tensor>{};
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();

  const float* forecast = forecast_rows.data_ptr<float>();
  int64_t first_row = 0;
  for (std::size_t i = 0; i < batch.tasks.size(); ++i) {
    auto& task = static_cast<ForecastTask&>(*batch.tasks[i]);
    const int64_t n = task.input.series_rows;
    task.output.forecast.assign(forecast + first_row * pred_len,
                                forecast + (first_row + n) * pred_len);
    if (wanted.first_row[i] >= 0) {
      task.output.attention = select_attention(maps, wanted.first_row[i], task.input.attention,
                                               task.input.attention.variables);
    }
    first_row += n;
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

void run_encode_batch(Batch& batch, const ModelRunner& runner, BatchObserver* observer) {
  const int64_t width = runner.config().d_model;
  std::map<int64_t, std::vector<EncodeTask*>> by_length;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<EncodeTask&>(*base);
    by_length[task.input.tokens].push_back(&task);
  }

  const auto start = std::chrono::steady_clock::now();
  for (auto& [length, group] : by_length) {
    const auto count = static_cast<int64_t>(group.size());
    at::Tensor tokens = at::empty({count, length, width}, at::kFloat);
    bool need_attention = false;
    for (int64_t i = 0; i < count; ++i) {
      const auto& values = group[static_cast<size_t>(i)]->input.values;
      std::memcpy(tokens[i].data_ptr<float>(), values.data(), values.size() * sizeof(float));
      need_attention = need_attention || group[static_cast<size_t>(i)]->input.attention.enabled;
    }
    const model::EncoderOutput result = runner.encode(tokens, need_attention);
    for (int64_t i = 0; i < count; ++i) {
      EncodeTask& task = *group[static_cast<size_t>(i)];
      task.output.output = copy_floats(result.output[i]);
      task.output.attention =
          select_attention(result.weights, i, task.input.attention, std::vector<int32_t>{0});
    }
  }
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();
  finish_tasks<EncodeTask>(batch, compute, observer);
}

template <typename Run>
DynamicBatcher::Processor logged(const char* method, const ModelRunner& runner,
                                 BatchObserver* observer, Run run) {
  return [method, &runner, observer, run](Batch& batch) {
    try {
      run(batch, runner, observer);
    } catch (const c10::Error& e) {
      // LibTorch's what() carries a C++ backtrace; callers get the message alone.
      const std::string message = e.what_without_backtrace();
      spdlog::error("{} batch of {} rows ({} requests) failed: {}", method, batch.rows,
                    batch.tasks.size(), message);
      throw std::runtime_error("the model failed on this batch: " + message);
    } catch (const std::exception& e) {
      spdlog::error("{} batch of {} rows ({} requests) failed: {}", method, batch.rows,
                    batch.tasks.size(), e.what());
      throw;
    }
  };
}

}  // namespace

DynamicBatcher::Processor forecast_processor(const ModelRunner& runner, BatchObserver* observer) {
  return logged("Forecast", runner, observer, run_forecast_batch);
}

DynamicBatcher::Processor encode_processor(const ModelRunner& runner, BatchObserver* observer) {
  return logged("Encode", runner, observer, run_encode_batch);
}

}  // namespace tsserve::server
