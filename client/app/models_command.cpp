// tsserve-client models: every model the server serves, each version's state, resident
// bytes and load time, and the repository entries it refused (ListModels).

#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <iostream>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"

namespace tsserve::client::cli {
namespace {

const char* state_name(v1::ModelVersionStatus::State state) {
  switch (state) {
    case v1::ModelVersionStatus::STATE_LOADING:
      return "loading";
    case v1::ModelVersionStatus::STATE_READY:
      return "ready";
    case v1::ModelVersionStatus::STATE_FAILED:
      return "failed";
    case v1::ModelVersionStatus::STATE_UNLOADING:
      return "unloading";
    default:
      return "unknown";
  }
}

}  // namespace

CommandRunner add_models_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "models", "list the served models and versions: state, resident bytes, load time");
  struct Flags {
    ConnectionFlags connection;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  add_connection_flags(*command, flags->connection, 5000);
  command->add_flag("--json", flags->json, "print JSON (protobuf's JSON mapping)");
  return [flags] {
    TsserveClient client = make_client(flags->connection);
    v1::ListModelsResponse listed;
    const grpc::Status status = client.list_models(&listed);
    if (!status.ok()) {
      return report_call_failure("ListModels", status, client,
                                 resolve_targets(flags->connection).front());
    }
    if (flags->json) {
      google::protobuf::util::JsonPrintOptions options;
      options.add_whitespace = true;
      options.preserve_proto_field_names = true;
      std::string json;
      google::protobuf::util::MessageToJsonString(listed, &json, options);
      std::cout << json;
      return kExitOk;
    }
    std::printf("%-24s %-8s %-10s %14s %8s  %s\n", "MODEL", "VERSION", "STATE", "RESIDENT_B",
                "LOAD_S", "NOTE");
    for (const v1::ListedModel& model : listed.models()) {
      if (model.versions_size() == 0)
        std::printf("%-24s %-8s %-10s\n", model.name().c_str(), "-", "none");
      for (const v1::ModelVersionStatus& version : model.versions()) {
        const bool is_default = version.version() == model.default_version();
        const std::string note = is_default ? "default" : version.reason();
        std::printf("%-24s %-8s %-10s %14lld %8.3f  %s\n", model.name().c_str(),
                    version.version().c_str(), state_name(version.state()),
                    static_cast<long long>(version.resident_bytes()), version.load_seconds(),
                    note.c_str());
      }
    }
    for (const std::string& refusal : listed.refusals()) std::cout << "refused: " << refusal << "\n";
    return kExitOk;
  };
}

}  // namespace tsserve::client::cli
