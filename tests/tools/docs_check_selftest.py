#!/usr/bin/env python3
"""Proves docs_check.py --check can fail: plants a small tree in a temp directory (CMake
targets, the server's option table and command line, a client's CLI11 flags, a script, a
.proto and Markdown that states only true things), expects exit 0 for it, then plants one
stale statement at a time (a renamed class, an option tsserve or tsserve-client lacks, a
missing file, a missing source name, a build path of no target, an rpc no service has,
...) and expects exit 1 with the problem reported at the FILE:LINE where it was planted.

With --server BIN (CTest docs_check_live_selftest) it plants what only docs_check --server
catches, against that tsserve: a quoted refusal the code's literals build but the server
answers otherwise (at least 337 points, where it says 336), a route the server's router
does not take (also one the source text lists), and docs that quote no refusal a request
makes (nothing was sent: nothing proved); with --client BIN too, the client's messages as
it prints them (a wrapper naming the wrong code, a CSV refusal worded otherwise).

  tests/tools/docs_check_selftest.py   (CTest docs_check_selftest)
  tests/tools/docs_check_selftest.py --server build/server/tsserve [--client build/client/tsserve-client]
"""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docs_check.py")

# The sources the check reads, in the formats of the real ones.
SOURCES = {
    "CMakeLists.txt": "add_subdirectory(server/app)\nadd_subdirectory(client)\n",
    "server/app/CMakeLists.txt":
        "add_executable(tsserve main.cpp)\n"
        "set_target_properties(tsserve PROPERTIES RUNTIME_OUTPUT_DIRECTORY "
        "${PROJECT_BINARY_DIR}/server)\n",
    "server/app/main.cpp": "int main() { return 0; }\n",
    # The option table: each entry's first string is the config key, the flag its dashed form.
    "server/config/config_option.cpp": (
        "std::vector<ConfigOption> make_options() {\n"
        "  options.push_back(text_option(\n"
        '      {"model", "Model", "FILE", "Checkpoint to serve"},\n'
        "      [](auto& c) -> auto& { return c.model.model; }, check_not_empty));\n"
        "  options.push_back(integer_option(\n"
        '      {"max_batch_rows", "Batching", "INT", "Series rows in one forward pass at most"},\n'
        "      [](auto& c) -> auto& { return c.batching.max_batch_rows; }, 1));\n"
        "  return options;\n}\n"),
    "server/config/command_line.cpp":
        'CLI::App app("tsserve", "tsserve");\n'
        'app.add_option("-c,--config", config_path, "JSON config file");\n',
    "server/call/keeping_forecast_codec.h": "#pragma once\nclass KeepingForecastCodec {};\n",
    "client/CMakeLists.txt": "add_executable(tsserve-client app/main.cpp)\n",
    "client/app/main.cpp": (
        "int main(int argc, char** argv) {\n"
        "  CLI::App app;\n"
        '  auto* forecast = app.add_subcommand("forecast", "one forecast");\n'
        '  forecast->add_option("--series-key", key, "the series")->required();\n'
        "  forecast->add_flag(\n"
        '      "-q,--quiet", quiet, "no table");\n'
        "}\n"),
    "proto/tsserve/v1/forecast_service.proto": (
        'syntax = "proto3";\npackage tsserve.v1;\n'
        "service ForecastService {\n"
        "  rpc Forecast(ForecastRequest) returns (ForecastResponse);\n"
        "  rpc GetModelInfo(GetModelInfoRequest) returns (GetModelInfoResponse);\n"
        "}\n"
        "message ForecastRequest {}\nmessage ForecastResponse {}\n"
        "message GetModelInfoRequest {}\nmessage GetModelInfoResponse {}\n"),
    # A metric, the routes the code lists in its 404 answer, an error message, a client
    # option of fixed values and OpenAPI's paths and fields: what section e. looks names up in.
    "server/observability/server_metrics.cpp": (
        'requests_ = &prometheus::BuildCounter().Name("tsserve_requests_total")\n'
        '    .Help("Calls answered").Register(*registry);\n'),
    "server/http/oip_rest_routes.cpp": (
        'return not_found({StatusCode::kNotFound, "the path: \\"" + path +\n'
        '    "\\" is not served; the REST binding serves /v2, /v2/health/ready, "\n'
        '    "/v2/models/M[/versions/V][/ready|/infer]"});\n'),
    "server/codec/series_rows.cpp": (
        'return invalid_argument(field + ": each variable has " + std::to_string(points) +\n'
        '                        " points; the model needs at least " + std::to_string(used));\n'),
    "client/app/forecast_command.cpp": (
        'command->add_option("--heads", flags->heads, "mean or each")\n'
        '    ->check(CLI::IsMember({"mean", "each"}));\n'),
    "docs/api/openapi.json": (
        '{"paths": {"/v1/models/{model}/forecast": {}}, "components": {"schemas": '
        '{"ForecastRequest": {"properties": {"series": {}, "intervals": {}}}}}}\n'),
    "ops/k8s/service.yaml": "kind: Service\n",
    # The benchmark generator: BENCHMARKS.md must end with the line it writes last.
    "tests/bench/run_benchmarks.py": (
        'out += ["What these figures say: "\n'
        '        "[docs/performance.md](docs/performance.md#reading-the-benchmarks)."]\n'),
    "tests/run.sh": (
        "#!/bin/bash\nfor arg in \"$@\"; do\n  case $arg in\n"
        "    --quick|--fast) quick=1 ;;\n  esac\ndone\n"),
}

# Markdown that states only true things.
DOCS = {
    "README.md": (
        "# tsserve\n"
        "\n"
        "Serve with `build/server/tsserve --model m.pt --max-batch-rows 8` (options:\n"
        "`server/config/config_option.cpp`; the answers: `keeping_forecast_codec.h`, whose\n"
        "`KeepingForecastCodec` keeps them). Ask with\n"
        "`tsserve-client forecast --series-key a -q`;\n"
        "`--max-batch-rows` alone is tsserve's, `ForecastService.GetModelInfo` and\n"
        "`tsserve.v1.ForecastRequest` are the protocol's, `forecast_service.pb.h` is generated,\n"
        "and `curl --fail-with-body` is curl's. The data is `../shared/data/ETTh1.csv`.\n"
        "\n"
        "```sh\n"
        "TSSERVE_MODEL=m.pt build/server/tsserve --config tsserve.json \\\n"
        "  --max-batch-rows 8 &\n"
        "grpcurl -plaintext localhost:50051 tsserve.v1.ForecastService/Forecast\n"
        "bash tests/run.sh --quick\n"
        "cmake --build build --target tsserve-client\n"
        "```\n"
        "\n"
        "See [the guide](docs/GUIDE.md).\n"
        "\n"
        "Calls count in `tsserve_requests_total` (`tsserve_requests_total{code=\"OK\"}`);\n"
        "`POST /v1/models/M/forecast` and `GET /v2/models/patchtst/versions/1/ready` answer;\n"
        "`TSSERVE_MAX_BATCH_ROWS=8` sets the batch; `tsserve-client forecast --heads each`\n"
        "draws each head; a short series is refused with\n"
        "`series: each variable has 95 points; the model needs at least 336`, the message\n"
        "\n"
        "```\n"
        "series: each variable has 12 points; the model needs at least 336\n"
        "```\n"
        "\n"
        "The manifests\n"
        "are in `ops/k8s/service.yaml`.\n"
        "\n"
        "```json\n"
        "{\"max_batch_rows\": 8, \"series\": {\"OT\": [1, 2]}, \"intervals\": [0.8]}\n"
        "```\n"),
    "BENCHMARKS.md": (
        "# Benchmarks\n"
        "\n"
        "| rows | ms |\n"
        "\n"
        "## The limit (`model_bench`, one thread)\n"
        "\n"
        "| benchmark | ms |\n"
        "|---|---:|\n"
        "| BM_Forward/rows:7 | 0.26 |\n"
        "\n"
        "What these figures say: [docs/performance.md](docs/performance.md#reading-the-benchmarks).\n"),
    "docs/performance.md": (
        "# Performance\n\n## Reading the benchmarks\n\n"
        "The forward's time is [the limit](../BENCHMARKS.md#the-limit-model_bench-one-thread).\n"),
    "docs/GUIDE.md": (
        "# Guide\n"
        "\n"
        "Back to [the README](../README.md); `tests/run.sh --fast` runs the quick tests.\n"
        "A batch has `--max-batch-rows` (default 8) rows at most, and\n"
        "`--max-batch-rows 8` (the default) is what `TSSERVE_MAX_BATCH_ROWS`; 8 = eight,\n"
        "the default, sets.\n"),
    # The option table's page (tsserve-config-reference's output): the defaults other pages
    # quote are compared with its Default column.
    "docs/configuration.md": (
        "# Configuration\n"
        "\n"
        "| Flag | Environment variable | Config file key | Type | Default | Description |\n"
        "|---|---|---|---|---|---|\n"
        "| `--model` | `TSSERVE_MODEL` | `model` | FILE | (none) | Checkpoint to serve |\n"
        "| `--max-batch-rows` | `TSSERVE_MAX_BATCH_ROWS` | `max_batch_rows` | INT | `8` | "
        "Series rows in one forward pass at most |\n"),
}

# Each fault: the document it goes into, the lines appended to it, the appended line the
# problem must be reported at (1 = the first appended line), and words of the message.
FAULTS = {
    "a stale identifier":
        ("docs/GUIDE.md", "Answers come from `KeepingForecastCodex`.\n", 1,
         "KeepingForecastCodex"),
    "a stale identifier in a C++ expression":
        ("docs/GUIDE.md", "See `BatchedCall<KeepingForecastCodex>::start`.\n", 1,
         "KeepingForecastCodex"),
    "an unknown option of tsserve (a continued fenced line)":
        ("README.md", "```sh\nbuild/server/tsserve --model m.pt \\\n  --max-batch-row 8\n```\n", 3,
         "--max-batch-row of tsserve"),
    "an unknown option of tsserve (inline)":
        ("docs/GUIDE.md", "Start `tsserve --threads 2`.\n", 1, "--threads of tsserve"),
    "an unknown option of tsserve-client":
        ("README.md", "```\n$ tsserve-client forecast --series-keys a\n```\n", 2,
         "--series-keys of tsserve-client"),
    "an option of none of our commands":
        ("docs/GUIDE.md", "Pass `--max-batch-rowz 4`.\n", 1, "--max-batch-rowz"),
    "an unknown option of a script":
        ("docs/GUIDE.md", "Run `bash tests/run.sh --slow`.\n", 1, "--slow of tests/run.sh"),
    "a missing file path":
        ("docs/GUIDE.md", "The table is `server/config/options_table.cpp`.\n", 1,
         "server/config/options_table.cpp"),
    "a link to a missing file":
        ("docs/GUIDE.md", "See [the API](../proto/README.md).\n", 1, "proto/README.md"),
    "a missing source basename":
        ("README.md", "Models live in `served_model.h`.\n", 1, "served_model.h"),
    "a build path with no target":
        ("docs/GUIDE.md", "Run `build/server/tsserved`.\n", 1, "build/server/tsserved"),
    "a build path where its target is not built":
        ("docs/GUIDE.md", "Run `build/server/app/tsserve`.\n", 1, "build/server/app/tsserve"),
    "an rpc that does not exist (pkg.Service/Method)":
        ("README.md",
         "```sh\ngrpcurl localhost:50051 tsserve.v1.ForecastService/Predict\n```\n", 2,
         "no rpc Predict"),
    "an rpc that does not exist (Service.Method)":
        ("docs/GUIDE.md", "Call `ForecastService.ListModels`.\n", 1, "no rpc ListModels"),
    "a service that does not exist":
        ("docs/GUIDE.md", "Call `Forecaster.Forecast`.\n", 1, "no service Forecaster"),
    "a message the package does not declare":
        ("docs/GUIDE.md", "Send a `tsserve.v1.PredictRequest`.\n", 1,
         "declares no PredictRequest"),
    # Section e.: names a reader types, each looked up in what the code declares.
    "a metric that does not exist":
        ("docs/GUIDE.md", "Alert on `rate(tsserve_request_total[5m])`.\n", 1,
         "metric 'tsserve_request_total'"),
    "a route that does not exist":
        ("docs/GUIDE.md", "Call `POST /v1/models/M/predict`.\n", 1,
         "route '/v1/models/M/predict'"),
    "a route that does not exist (in a fenced block)":
        ("README.md", "```sh\ncurl -s localhost:8000/v2/model/patchtst/infer\n```\n", 2,
         "route '/v2/model/patchtst/infer'"),
    "a TSSERVE_ variable that does not exist":
        ("docs/GUIDE.md", "Set `TSSERVE_MAX_BATCH_ROW=8`.\n", 1,
         "variable 'TSSERVE_MAX_BATCH_ROW'"),
    "a config key that does not exist":
        ("docs/GUIDE.md", "```json\n{\"max_batch_row\": 8}\n```\n", 2,
         "JSON key 'max_batch_row'"),
    "a JSON field that does not exist":
        ("docs/GUIDE.md", "Send `{\"series\": {}, \"horizon\": 24}`.\n", 1,
         "JSON key 'horizon'"),
    "an option value the option does not take":
        ("docs/GUIDE.md", "```sh\ntsserve-client forecast --heads all\n```\n", 2,
         "--heads all"),
    "a stale quoted error message":
        ("docs/GUIDE.md",
         "Too short a series is refused\n(`series: variable 2 has 95 points; the model\n"
         "needs at least 336`).\n", 2, "quoted error message"),
    "a stale error message shown as a block":
        ("docs/GUIDE.md",
         "A short series is refused with the message\n\n```\nseries: variable 2 has 95 "
         "points; the model needs at least 336\n```\n", 4, "quoted error message"),
    "notes by hand after BENCHMARKS.md's generated end":
        ("BENCHMARKS.md", "\n## Reading these figures (by hand)\n", 0,
         "goes on past the generator's last line"),
    # Section f.: a default quoted outside the option table's page.
    "a wrong default quoted outside the option table":
        ("docs/GUIDE.md", "Batches are `--max-batch-rows` (default 16) rows.\n", 1,
         "--max-batch-rows: the docs say default 16, the option table (docs/configuration.md) "
         "says 8"),
    "a wrong default after a change (A -> B)":
        ("README.md", "| `--max-batch-rows` default 8 -> 32 | faster |\n", 1,
         "--max-batch-rows: the docs say default 32"),
    "a value called the default that is not":
        ("docs/GUIDE.md", "Leave `--max-batch-rows 16` (the default).\n", 1,
         "--max-batch-rows 16 is called the default"),
    "a wrong default of the option's variable, wrapped":
        ("docs/GUIDE.md", "The variable\n`TSSERVE_MAX_BATCH_ROWS`; 4 = small,\nthe default.\n", 2,
         "--max-batch-rows: the docs say default 4"),
    # BENCHMARKS.md's figures are linked, never copied; a link names a section it has.
    "a row of BENCHMARKS.md copied into performance.md":
        ("docs/performance.md", "\n| benchmark | ms |\n|---|---:|\n| BM_Forward/rows:7 | 0.30 |\n", 4,
         "copies the row 'BM_Forward/rows:7' of BENCHMARKS.md"),
    "a link to a section BENCHMARKS.md does not have":
        ("docs/performance.md", "See [the limit](../BENCHMARKS.md#the-limits).\n", 1,
         "BENCHMARKS.md has no heading or anchor 'the-limits'"),
    "an unknown top-level folder (a typo)":
        ("docs/GUIDE.md", "The client is in `clients/app/main.cpp`.\n", 1,
         "no top-level folder 'clients'"),
    "an unknown top-level folder (a renamed deploy/)":
        ("docs/GUIDE.md", "Apply `deploy/k8s/service.yaml`.\n", 1,
         "no top-level folder 'deploy'"),
}


def run_check(files, *options, copies=(), client=None):
    """docs_check --check on a tree of `files` (path -> text), with `copies` (paths of
    this repository copied into it: the bundled models a driven server loads) and, given a
    `client`, a build folder holding it (build/client/tsserve-client, --build-dir)."""
    import shutil
    with tempfile.TemporaryDirectory() as root:
        if client:
            os.makedirs(os.path.join(root, "build", "client"))
            os.symlink(os.path.abspath(client), os.path.join(root, "build", "client", "tsserve-client"))
            options = options + ("--build-dir", os.path.join(root, "build"))
        for path, text in files.items():
            full = os.path.join(root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        for path in copies:
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            shutil.copyfile(os.path.join(REPOSITORY, path), os.path.join(root, path))
        options = [o.replace("{root}", root) for o in options]
        done = subprocess.run([sys.executable, CHECK, "--root", root, "--check", *options],
                              capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


def planted(doc, appended, line_in_appended, docs=None):
    """The docs with `appended` after `doc`'s text, and the FILE:LINE: the check must name."""
    docs = dict(docs or DOCS)
    base = docs[doc]
    docs[doc] = base + appended
    return docs, f"{doc}:{base.count(chr(10)) + line_in_appended}:"


REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(CHECK), "..", ".."))
# What --server loads: the bundled models (docs_check.py's DRIVEN_MODELS).
MODEL_FILES = tuple(f"model/default/{stem}.{ext}" for stem in ("patchtst_etth1", "itransformer_etth1")
                    for ext in ("json", "pt"))
# With a server, a quoted refusal is compared with the server's answer: the clean docs
# quote the short-series refusal up to "..." (the server's goes on).
LIVE_DOCS = {path: text.replace("needs at least 336`", "needs at least 336 ...`")
             .replace("needs at least 336\n```", "needs at least 336 ...\n```")
             for path, text in DOCS.items()}
# Each: the document, the lines appended, the line of the problem, its words, and the
# sources changed for the plant.
LIVE_FAULTS = {
    # The code's literals build it (a number fills a slot); the server answers 336.
    "a stale quoted error message that only the server's answer disproves":
        ("docs/GUIDE.md", "Too short a series is refused\n(`series: each variable has 95 "
         "points; the model needs at least 337 ...`).\n", 2,
         "is not what the server answers to a /v1 forecast", {}),
    "a route the server's router does not take":
        ("docs/GUIDE.md", "Call `POST /v1/models/M/predict`.\n", 1,
         "route '/v1/models/M/predict' is not served (routes: the driven server's", {}),
    # The source text lists it (the static check passes): the server does not serve it.
    "a route the sources list but the server does not serve":
        ("docs/GUIDE.md", "Call `GET /v2/models/M/explain`.\n", 1,
         "route '/v2/models/M/explain' is not served (routes: the driven server's",
         {"server/http/oip_rest_routes.cpp": SOURCES["server/http/oip_rest_routes.cpp"].replace(
             "[/ready|/infer]", "[/ready|/infer|/explain]")}),
}


# The plants that need tsserve-client too: the client's own messages, run as it prints them.
CLIENT_FAULTS = {
    # Literals build it with any CODE; the client prints INVALID_ARGUMENT.
    "a client's wrapper naming the wrong code":
        ("docs/GUIDE.md", "Exit 1 is printed as `Forecast failed: NOT_FOUND: series: each "
         "variable has 100 points; the model needs at least 336 ...`.\n", 1,
         "is not what the server answers to tsserve-client forecast --points 100", {}),
    # The sources' literal says "no finite value" (a stale reader); the client's says otherwise.
    "a client's CSV refusal it words otherwise":
        ("docs/GUIDE.md", "Bad input: `data.csv: line 391, column 'MULL': 'oops' is no "
         "finite value`.\n", 1, "is not what the server answers to tsserve-client forecast of data.csv",
         {"client/csv/csv_reader.cpp":
          'throw CsvError(path + ": line " + std::to_string(line) + ", column \'" + name +\n'
          '               "\': \'" + token + "\' is no finite value");\n'}),
}


def live_failures(server, client=None):
    """The plants only a running server catches (docs_check --server), and with `client`
    those of tsserve-client's messages."""
    failures = []
    options = ("--server", os.path.abspath(server))
    code, output = run_check({**SOURCES, **LIVE_DOCS}, *options, copies=MODEL_FILES)
    if code != 0:
        failures.append(f"the clean tree against the server was refused (exit {code}):\n{output}")
    faults = [(name, fault, None) for name, fault in LIVE_FAULTS.items()]
    faults += [(name, fault, client) for name, fault in CLIENT_FAULTS.items() if client]
    for name, (doc, appended, line, words, sources), with_client in faults:
        docs, where = planted(doc, appended, line, LIVE_DOCS)
        if sources:  # the static check passes it: only the server's answer fails it
            code, output = run_check({**SOURCES, **sources, **docs})
            if code != 0:
                failures.append(f"{name}: the static check already refused it (exit {code}):\n"
                                f"{output}")
        code, output = run_check({**SOURCES, **sources, **docs}, *options, copies=MODEL_FILES,
                                 client=with_client)
        reported = [l for l in output.splitlines() if l.startswith(where) and words in l]
        if code != 1 or not reported:
            failures.append(f"{name}: expected exit 1 and '{where} ...{words}...', "
                            f"got exit {code}:\n{output}")
    # Docs that quote no refusal a request makes: the server was sent none, nothing proved.
    quiet = {path: text.replace("series: each variable has", "series: every variable has")
             for path, text in LIVE_DOCS.items()}
    quiet_sources = dict(SOURCES)
    quiet_sources["server/codec/series_rows.cpp"] = SOURCES["server/codec/series_rows.cpp"].replace(
        "each variable has", "every variable has")
    code, output = run_check({**quiet_sources, **quiet}, *options, copies=MODEL_FILES)
    if code != 1 or "no quoted error message was sent to the server" not in output:
        failures.append(f"docs quoting no refusal a request makes: expected exit 1 and 'no "
                        f"quoted error message was sent', got exit {code}:\n{output}")
    return failures, len(faults) + 2


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", help="a tsserve binary: run only the plants that "
                        "docs_check.py --server catches (quoted refusals, served routes)")
    parser.add_argument("--client", help="with --server, a tsserve-client binary: also the "
                        "plants of the client's messages")
    args = parser.parse_args()
    if args.server:
        failures, total = live_failures(args.server, args.client)
        for failure in failures:
            print("FAIL " + failure)
        print(f"{total - len(failures)} of {total} planted trees judged right against the server")
        return 1 if failures else 0
    failures = []
    code, output = run_check({**SOURCES, **DOCS})
    if code != 0:
        failures.append(f"the clean tree was refused (exit {code}):\n{output}")
    for name, (doc, appended, line, words) in FAULTS.items():
        docs, where = planted(doc, appended, line)
        code, output = run_check({**SOURCES, **docs})
        reported = [l for l in output.splitlines() if l.startswith(where) and words in l]
        if code != 1 or not reported:
            failures.append(f"{name}: expected exit 1 and '{where} ...{words}...', "
                            f"got exit {code}:\n{output}")
    # With a scrape (--metrics), the names are the scrape's: a metric the sources spell but
    # the driven server never exposed is reported (README.md:21 names tsserve_requests_total).
    scrape = {"scrape.prom": "# TYPE tsserve_other_total counter\ntsserve_other_total 1\n"}
    code, output = run_check({**SOURCES, **DOCS, **scrape}, "--metrics", "{root}/scrape.prom")
    if code != 1 or "README.md:21: metric 'tsserve_requests_total'" not in output:
        failures.append(f"a metric absent from the scrape: expected exit 1 and README.md:21, "
                        f"got exit {code}:\n{output}")
    code, output = run_check({**SOURCES, **DOCS, "scrape.prom": "tsserve_requests_total 3\n"},
                             "--metrics", "{root}/scrape.prom")
    if code != 0:
        failures.append(f"the clean tree against its scrape was refused (exit {code}):\n{output}")
    for failure in failures:
        print("FAIL " + failure)
    total = len(FAULTS) + 3
    print(f"{total - len(failures)} of {total} planted trees judged right")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
