"""The soak's memory curve as a PNG: RSS over time, the warm-up shaded, the start and end
levels that rss_sampler.flatness compared drawn as lines.

    /usr/bin/python3 tests/reliability/soak/plot_memory.py memory.csv memory.png [WARMUP_S]
"""

import csv
import sys


def plot(csv_path, png_path, warmup_s, memory=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    seconds = [float(r["seconds"]) / 60 for r in rows]
    rss = [int(r["rss_kib"]) / 1024 for r in rows]
    figure, axes = plt.subplots(figsize=(8, 3.6), dpi=110)
    axes.plot(seconds, rss, lw=1.2, color="#1f77b4", label="VmRSS")
    axes.axvspan(0, warmup_s / 60, color="0.9", label="warm-up")
    if memory:
        for key, style, label in (("start_kib", "--", "after warm-up"), ("end_kib", ":", "end")):
            axes.axhline(memory[key] / 1024, ls=style, color="0.3", lw=1,
                         label="%s %.1f MiB" % (label, memory[key] / 1024))
    axes.set_xlabel("minutes")
    axes.set_ylabel("MiB")
    low, high = min(rss), max(rss)
    axes.set_ylim(low - max(5, 0.1 * (high - low)), high + max(5, 0.1 * (high - low)))
    axes.set_title("tsserve resident memory under mixed valid and invalid requests")
    axes.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(png_path)


if __name__ == "__main__":
    plot(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 0)
