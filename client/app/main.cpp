// tsserve-client: forecasts from CSV files (with plots and attention heatmaps), raw
// encoder calls, health and model information, and a load generator. See
// docs/api/clients.md; exit codes are in exit_codes.h.

#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <stdexcept>

#include "commands.h"
#include "exit_codes.h"
#include "tsserve/csv/csv_window.h"

int main(int argc, char** argv) {
  namespace cli = tsserve::client::cli;
  CLI::App app{"tsserve-client: call a tsserve server (gRPC, tsserve.v1)", "tsserve-client"};
  app.require_subcommand(1);
  std::map<CLI::App*, cli::CommandRunner> runners;
  for (auto add : {cli::add_forecast_command, cli::add_encode_command, cli::add_health_command,
                   cli::add_info_command, cli::add_models_command, cli::add_bench_command,
                   cli::add_replay_command, cli::add_observe_command}) {
    cli::CommandRunner runner = add(app);
    runners[app.get_subcommands({}).back()] = std::move(runner);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return cli::kExitUsage;
  }
  try {
    for (const auto& [command, run] : runners) {
      if (command->parsed()) return run();
    }
  } catch (const tsserve::csv::CsvError& e) {
    std::cerr << "tsserve-client: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "tsserve-client: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "tsserve-client: " << e.what() << "\n";
    return cli::kExitBadInput;
  }
  return cli::kExitUsage;
}
