#pragma once
// Each subcommand registers its options on the app and returns the function that runs
// it; the function returns the process exit code (exit_codes.h).

#include <CLI/CLI.hpp>

#include <functional>

namespace tsserve::client::cli {

using CommandRunner = std::function<int()>;

CommandRunner add_forecast_command(CLI::App& app);
CommandRunner add_encode_command(CLI::App& app);
CommandRunner add_health_command(CLI::App& app);
CommandRunner add_info_command(CLI::App& app);
CommandRunner add_models_command(CLI::App& app);
CommandRunner add_bench_command(CLI::App& app);
CommandRunner add_replay_command(CLI::App& app);
CommandRunner add_observe_command(CLI::App& app);

}  // namespace tsserve::client::cli
