// tsserve-client encode: caller-made patch tokens [L, D] (.npy or .json) -> Encode ->
// the encoder output [L, D] and optionally its attention maps, as JSON or .npy.

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"
#include "tsserve/client/npy_file.h"

namespace tsserve::client::cli {
namespace {

struct EncodeFlags {
  ConnectionFlags connection;
  std::string tokens;
  std::string out;
  std::string attention_out;
  std::string heads = "mean";
  std::vector<int> layers;
  std::string model;
  std::string model_version;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// JSON tokens: [[...], ...] or {"tokens": [[...], ...]}, L rows of D numbers.
TensorData read_json_tokens(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::invalid_argument(path + ": cannot be opened");
  nlohmann::json json;
  try {
    file >> json;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(path + ": not JSON: " + e.what());
  }
  const nlohmann::json& rows = json.is_object() && json.contains("tokens") ? json["tokens"] : json;
  if (!rows.is_array() || rows.empty() || !rows[0].is_array()) {
    throw std::invalid_argument(path + ": expected [[...], ...] or {\"tokens\": [[...], ...]}");
  }
  TensorData data;
  data.shape = {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())};
  for (size_t r = 0; r < rows.size(); ++r) {
    if (!rows[r].is_array() || rows[r].size() != rows[0].size()) {
      throw std::invalid_argument(path + ": tokens row " + std::to_string(r) + " has " +
                                  std::to_string(rows[r].size()) + " numbers; row 0 has " +
                                  std::to_string(rows[0].size()));
    }
    for (size_t d = 0; d < rows[r].size(); ++d) {
      if (!rows[r][d].is_number()) {
        throw std::invalid_argument(path + ": tokens[" + std::to_string(r) + "][" +
                                    std::to_string(d) + "] is not a number");
      }
      data.values.push_back(rows[r][d].get<float>());
    }
  }
  return data;
}

TensorData read_tokens(const std::string& path) {
  if (ends_with(path, ".npy")) return read_npy(path);
  if (ends_with(path, ".json")) return read_json_tokens(path);
  throw std::invalid_argument("tokens: '" + path + "' should end in .npy or .json");
}

nlohmann::json tensor_json(const TensorData& data) {
  return {{"shape", data.shape}, {"values", data.values}};
}

void write_tensor_file(const std::string& path, const TensorData& data) {
  if (ends_with(path, ".npy")) return write_npy(path, data);
  if (!ends_with(path, ".json")) {
    throw std::invalid_argument("out: '" + path + "' should end in .npy or .json");
  }
  std::ofstream file(path);
  if (!file) throw std::invalid_argument(path + ": cannot be written");
  file << tensor_json(data).dump() << "\n";
}

// Attention maps stacked: [layers, H, L, L] (each head) or [layers, L, L] (averaged).
TensorData stack_attention(const v1::EncodeResponse& response) {
  TensorData stacked;
  for (const auto& map : response.attention()) {
    TensorData weights = read_tensor(map.weights());
    if (stacked.shape.empty()) {
      stacked.shape = weights.shape;
      stacked.shape.insert(stacked.shape.begin(), 0);
    }
    stacked.shape[0] += 1;
    stacked.values.insert(stacked.values.end(), weights.values.begin(), weights.values.end());
  }
  return stacked;
}

int run_encode(const EncodeFlags& flags) {
  if (!flags.out.empty() && !ends_with(flags.out, ".npy") && !ends_with(flags.out, ".json")) {
    throw std::invalid_argument("out: '" + flags.out + "' should end in .npy or .json");
  }
  const TensorData tokens = read_tokens(flags.tokens);
  if (tokens.shape.size() != 2) {
    throw std::invalid_argument(flags.tokens + ": tokens must be 2-D [L, D], not rank " +
                                std::to_string(tokens.shape.size()));
  }
  TsserveClient client = make_client(flags.connection);
  v1::EncodeRequest request;
  request.set_model(flags.model);
  request.set_model_version(flags.model_version);
  write_tensor(tokens, true, request.mutable_tokens());
  request.set_output_encoding(v1::TENSOR_ENCODING_RAW);
  if (!flags.attention_out.empty()) {
    request.mutable_attention()->set_enabled(true);
    request.mutable_attention()->set_average_heads(flags.heads == "mean");
    for (int layer : flags.layers) request.mutable_attention()->add_layers(layer);
  }
  v1::EncodeResponse response;
  const grpc::Status status = client.encode(request, &response);
  if (!status.ok()) {
    return report_call_failure("Encode", status, client, resolve_targets(flags.connection).front());
  }
  const TensorData output = read_tensor(response.output());
  if (flags.out.empty()) {
    std::cout << nlohmann::json{{"model", response.model_name()},
                                {"version", response.model_version()},
                                {"output", tensor_json(output)}}.dump()
              << "\n";
  } else {
    write_tensor_file(flags.out, output);
    std::cout << "output [" << output.dim(0) << ", " << output.dim(1) << "] -> " << flags.out
              << "\n";
  }
  if (!flags.attention_out.empty()) {
    write_tensor_file(flags.attention_out, stack_attention(response));
    std::cout << response.attention_size() << " attention maps -> " << flags.attention_out << "\n";
  }
  return kExitOk;
}

}  // namespace

CommandRunner add_encode_command(CLI::App& app) {
  auto* command =
      app.add_subcommand("encode", "run the encoder alone on patch tokens [L, D] from a file");
  auto flags = std::make_shared<EncodeFlags>();
  add_connection_flags(*command, flags->connection, 30000);
  command->add_option("tokens", flags->tokens, "tokens [L, D]: .npy (float32/64) or .json")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--out", flags->out,
                      "write the output [L, D] to .npy or .json (default: JSON on stdout)");
  command->add_option("--attention-out", flags->attention_out,
                      "ask for attention maps and write them stacked per layer to .npy or .json");
  command->add_option("--heads", flags->heads, "mean (averaged) or each (per head)")
      ->check(CLI::IsMember({"mean", "each"}))
      ->capture_default_str();
  command->add_option("--layers", flags->layers, "attention layers (default: all)")->delimiter(',');
  command->add_option("--model", flags->model, "model name (default: the server's only model)");
  command->add_option("--model-version", flags->model_version,
                      "model version (default: the newest ready one)");
  return [flags] { return run_encode(*flags); };
}

}  // namespace tsserve::client::cli
