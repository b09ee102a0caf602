// tsserve-client info: the served model's configuration and how it is served
// (GetModelInfo), as "key: value" lines or JSON.

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <iostream>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"

namespace tsserve::client::cli {

CommandRunner add_info_command(CLI::App& app) {
  auto* command = app.add_subcommand("info", "show the model's configuration and device");
  struct Flags {
    ConnectionFlags connection;
    std::string model;
    std::string model_version;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  add_connection_flags(*command, flags->connection, 5000);
  command->add_option("--model", flags->model, "model name (default: the server's only model)");
  command->add_option("--model-version", flags->model_version,
                      "model version (default: the newest ready one)");
  command->add_flag("--json", flags->json, "print JSON (protobuf's JSON mapping)");
  return [flags] {
    TsserveClient client = make_client(flags->connection);
    v1::ModelInfo info;
    const grpc::Status status = client.model_info(flags->model, &info, flags->model_version);
    if (!status.ok()) {
      return report_call_failure("GetModelInfo", status, client,
                                 resolve_targets(flags->connection).front());
    }
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    options.always_print_primitive_fields = true;
    options.preserve_proto_field_names = true;
    std::string json;
    google::protobuf::util::MessageToJsonString(info, &json, options);
    if (flags->json) {
      std::cout << json;
      return kExitOk;
    }
    // Text: the same fields as the JSON, one per line, in declaration order.
    const auto* descriptor = info.GetDescriptor();
    const auto* reflection = info.GetReflection();
    for (int i = 0; i < descriptor->field_count(); ++i) {
      const auto* field = descriptor->field(i);
      std::string value;
      if (field->is_repeated()) {
        for (int k = 0; k < reflection->FieldSize(info, field); ++k) {
          std::string item;
          google::protobuf::TextFormat::PrintFieldValueToString(info, field, k, &item);
          value += (k ? ", " : "") + item;
        }
      } else {
        google::protobuf::TextFormat::PrintFieldValueToString(info, field, -1, &value);
      }
      std::cout << field->name() << ": " << value << "\n";
    }
    return kExitOk;
  };
}

}  // namespace tsserve::client::cli
