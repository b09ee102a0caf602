// tsserve-client health: the grpc.health.v1 Check, for scripts and container health
// checks. Exit 0 SERVING, 1 anything else, 2 unreachable.

#include <iostream>

#include "commands.h"
#include "connection_flags.h"
#include "exit_codes.h"

namespace tsserve::client::cli {

CommandRunner add_health_command(CLI::App& app) {
  auto* command = app.add_subcommand("health", "ask the server's health service (exit 0 when SERVING)");
  struct Flags {
    ConnectionFlags connection;
    std::string service;
    bool quiet = false;
  };
  auto flags = std::make_shared<Flags>();
  add_connection_flags(*command, flags->connection, 2000);
  command->add_option("--service", flags->service,
                      "service to check (\"\" = the whole server; tsserve.v1.ForecastService, "
                      "inference.GRPCInferenceService, or a model's name)");
  command->add_flag("-q,--quiet", flags->quiet, "print nothing; the exit code says it all");
  return [flags] {
    TsserveClient client = make_client(flags->connection);
    grpc::health::v1::HealthCheckResponse::ServingStatus serving{};
    const grpc::Status status = client.health(flags->service, &serving);
    if (!status.ok()) {
      return report_call_failure("health check", status, client,
                                 resolve_targets(flags->connection).front());
    }
    if (!flags->quiet) {
      std::cout << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(serving) << "\n";
    }
    return serving == grpc::health::v1::HealthCheckResponse::SERVING ? kExitOk : kExitServerError;
  };
}

}  // namespace tsserve::client::cli
