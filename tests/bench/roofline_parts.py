#!/usr/bin/env python3
"""Where the fused forwards' time goes, part by part, against the FMA peak: the roofline
note of docs/performance.md (Reading the benchmarks), reproducible.

For each family it runs one model_bench benchmark under `perf record --call-graph dwarf`
(the bundled PatchTST at 448 rows, the bundled iTransformer at 64 samples), attributes
every sample to a part of the forward by the innermost frame that names one (a stage
function such as softmax_columns, or the call site in the kernel file: the QKV GEMM, the
feed-forward GEMMs, ...), and divides each part's FLOPs (fused_flops.h,
fused_itransformer_flops.h: the same formulas, here in Python) by its share of the time.
The FMA peak is BM_Roofline's, measured in the same run.

  /usr/bin/python3 tests/bench/roofline_parts.py [--build build] [--seconds 2]

Needs `perf` (Debian's linux-perf) and a RelWithDebInfo build (line tables).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARTS = ("embedding", "projections", "attention", "feed_forward", "norms", "head")

# A stage function's own samples (the innermost frame naming one wins).
STAGE_FUNCTIONS = (
    (re.compile(r"softmax_columns|attend|token_attention|tslib_context_view"), "attention"),
    (re.compile(r"add_layer_norm|layer_norm_rows|normalise_inputs"), "norms"),
    (re.compile(r"write_softmax_rows|accumulate_softmax|transpose_mean|divide_map"), "maps"),
)
# A call site in a kernel file: the text of its line names the part.
CALL_SITES = (
    (re.compile(r"qkv_weight|layer\.(key|value|query|out)\b|out_weight"), "projections"),
    (re.compile(r"ff1|ff2"), "feed_forward"),
    (re.compile(r"attention\(w|attend_tokens"), "attention"),
    (re.compile(r"embed|position_transposed|patches_t\[|w\.embedding"), "embedding"),
    (re.compile(r"head_weight|w\.projection"), "head"),
    (re.compile(r"layer_norm|final_|mean|stdev|stats|series\[t\]|sum \+=|squares"), "norms"),
)
KERNEL_FILES = ("fused_forward_kernels.cpp", "fused_itransformer_kernels.cpp")


def config(name):
    with open(os.path.join(ROOT, "model", "default", name)) as f:
        return json.load(f)


def patchtst_flops(c):
    """fused_flops.h's forward_flops_per_row, per row."""
    p = (c["seq_len"] - c["patch_len"]) // c["stride"] + 2
    d, layers, h, ff = c["d_model"], c["e_layers"], c["n_heads"], c["d_ff"]
    return {"embedding": 2 * p * c["patch_len"] * d,
            "projections": layers * 4 * 2 * p * d * d,
            "attention": layers * (2 * 2 * p * p * d + 3 * p * p * h),
            "feed_forward": layers * (2 * 2 * p * d * ff + p * ff),
            "norms": (2 * layers + 1) * 5 * p * d + 4 * c["seq_len"],
            "head": 2 * d * p * c["pred_len"]}


def itransformer_flops(c, calendar_tokens):
    """fused_itransformer_flops.h's count of the fused forward (kFused), per sample."""
    n = c["enc_in"]
    tokens = n + calendar_tokens
    d, ff, h, t, layers = c["d_model"], c["d_ff"], c["n_heads"], c["seq_len"], c["e_layers"]
    f = dict.fromkeys(PARTS, 0.0)
    for i in range(layers):
        q = n if i == layers - 1 else tokens
        f["projections"] += 2 * 2 * tokens * d * d + 2 * 2 * q * d * d
        f["attention"] += 2 * 2 * q * tokens * d + 3 * q * tokens * h
        f["feed_forward"] += 2 * 2 * q * d * ff + q * ff
        f["norms"] += 2 * 5 * q * d
    f["embedding"] = 2 * tokens * t * d
    f["norms"] += 5 * n * d + 4 * n * t + 2 * n * c["pred_len"]
    f["head"] = 2 * n * d * c["pred_len"]
    return f


def line_text(path_cache, file_name, line):
    if file_name not in path_cache:
        with open(os.path.join(ROOT, "model", "kernels", file_name)) as f:
            path_cache[file_name] = f.read().split("\n")
    lines = path_cache[file_name]
    # The statement that starts at the line perf points to (a call may span lines).
    statement = []
    for text in lines[line - 1:line + 3] if 0 < line <= len(lines) else []:
        statement.append(text)
        if text.rstrip().endswith((";", "{", "}")):
            break
    return " ".join(statement)


def part_of(frames, cache):
    """frames: [(symbol, srcline)] innermost first -> the part, or None (not the forward)."""
    for symbol, srcline in frames:
        for pattern, part in STAGE_FUNCTIONS:
            if pattern.search(symbol):
                return part
        m = re.match(r"(\S+):(\d+)", srcline)
        if m and m.group(1) in KERNEL_FILES:
            text = line_text(cache, m.group(1), int(m.group(2)))
            for pattern, part in CALL_SITES:
                if pattern.search(text):
                    return part
    return None


def profile(model_bench, bench_filter, seconds, env):
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        subprocess.run(["perf", "record", "--call-graph", "dwarf,16384", "-F", "1000", "-o", data,
                        "--", model_bench, "--benchmark_filter=" + bench_filter,
                        "--benchmark_min_time=%g" % seconds], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # perf script's addr2line helper now and then dies mid-run (SIGPIPE): try again.
        for _ in range(4):
            done = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym,srcline"],
                                  capture_output=True, text=True)
            if done.returncode == 0:
                break
        done.check_returncode()
        script = done.stdout
    counts, cache = {}, {}
    for sample in script.split("\n\n"):
        lines = [x.strip() for x in sample.strip().split("\n") if x.strip()]
        frames, i = [], 0
        while i < len(lines):
            symbol = lines[i].split(None, 1)[1] if " " in lines[i] else lines[i]
            srcline = lines[i + 1] if i + 1 < len(lines) and re.match(r"\S+:\d+", lines[i + 1]) else ""
            frames.append((symbol, srcline))
            i += 2 if srcline else 1
        part = part_of(frames, cache)
        if part:
            counts[part] = counts.get(part, 0) + 1
    return counts


def run_json(model_bench, bench_filter, seconds, env):
    out = subprocess.run([model_bench, "--benchmark_filter=" + bench_filter, "--benchmark_format=json",
                          "--benchmark_min_time=%g" % seconds], check=True, capture_output=True,
                         text=True, env=env).stdout
    return json.loads(out)["benchmarks"]


def table(name, flops_per_unit, units_per_s, counts, peak):
    total = sum(counts.get(p, 0) for p in PARTS)
    rows = ["**%s**: %.0f units/s in the benchmark, FMA peak %.0f GFLOP/s (BM_Roofline)." % (
                name, units_per_s, peak), "",
            "| part | MFLOP per unit | share of the forward's time | GFLOP/s | share of the FMA peak |",
            "|---|---:|---:|---:|---:|"]
    for part in PARTS:
        share = counts.get(part, 0) / total if total else 0
        gflops = flops_per_unit[part] * units_per_s / share / 1e9 if share else float("nan")
        rows.append("| %s | %.3f | %.0f %% | %.1f | %.0f %% |" % (
            part.replace("_", "-"), flops_per_unit[part] / 1e6, 100 * share, gflops, 100 * gflops / peak))
    whole = sum(flops_per_unit.values()) * units_per_s / 1e9
    rows.append("| whole forward | %.3f | 100 %% | %.1f | %.0f %% |" % (
        sum(flops_per_unit.values()) / 1e6, whole, 100 * whole / peak))
    return rows + [""]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    model_bench = os.path.join(args.build, "tests", "bench", "model_bench")
    env = dict(os.environ, TSSERVE_BENCH_THREADS="1")
    peak = run_json(model_bench, "BM_Roofline", 0.1, env)[0]["fma_peak_GFLOPs"]
    out = []
    patchtst = run_json(model_bench, "BM_FusedForward/rows:448$", args.seconds, env)[0]
    out += table("PatchTST (bundled, 448 rows; unit: a row)", patchtst_flops(config("patchtst_etth1.json")),
                 patchtst["rows_per_s"], profile(model_bench, "BM_FusedForward/rows:448$", args.seconds, env),
                 peak)
    itr = run_json(model_bench, "BM_FusedITransformerForward/samples:64$", args.seconds, env)[0]
    out += table("iTransformer (bundled, 64 samples of 7 variables + 4 calendar tokens; unit: a sample)",
                 itransformer_flops(config("itransformer_etth1.json"), 4), itr["samples_per_s"],
                 profile(model_bench, "BM_FusedITransformerForward/samples:64$", args.seconds, env), peak)
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
