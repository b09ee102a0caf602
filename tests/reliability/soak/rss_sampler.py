"""Resident memory of a process over time (/proc/PID/status VmRSS), and whether it stays
flat after a warm-up.

The sampler is a thread that writes one CSV row per interval (seconds since start, VmRSS
and VmHWM in KiB) until stopped; the wait between samples is an Event wait, so stopping
is immediate. flatness() compares the median of the samples just after the warm-up with
the median of the last ones (medians: one sample taken mid-allocation does not decide).
"""

import statistics
import threading
import time


def read_status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


class RssSampler:
    def __init__(self, pid, csv_path, interval_s):
        self.pid = pid
        self.csv_path = csv_path
        self.interval_s = interval_s
        self.samples = []  # (seconds, rss_kib)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = None

    def start(self):
        self._started = time.monotonic()
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()

    def _run(self):
        with open(self.csv_path, "w") as out:
            out.write("seconds,rss_kib,hwm_kib\n")
            while True:
                try:
                    rss = read_status_kib(self.pid, "VmRSS")
                    hwm = read_status_kib(self.pid, "VmHWM")
                except (OSError, KeyError):
                    return  # the process is gone
                seconds = time.monotonic() - self._started
                self.samples.append((seconds, rss))
                out.write("%.1f,%d,%d\n" % (seconds, rss, hwm))
                out.flush()
                if self._stop.wait(self.interval_s):
                    return


def flatness(samples, warmup_s, window_fraction=0.15, relative_limit=0.05, absolute_limit_kib=8192):
    """{start_kib, end_kib, growth_kib, growth_percent, slope_kib_per_min, flat, limit_kib}:
    start = median of the first `window_fraction` of the post-warm-up samples, end = median
    of the last ones; flat when the growth is below max(relative_limit x start, absolute)."""
    after = [(t, kib) for t, kib in samples if t >= warmup_s]
    if len(after) < 4:
        return None
    window = max(2, int(len(after) * window_fraction))
    start = statistics.median(kib for _, kib in after[:window])
    end = statistics.median(kib for _, kib in after[-window:])
    growth = end - start
    limit = max(relative_limit * start, absolute_limit_kib)
    mean_t = statistics.fmean(t for t, _ in after)
    mean_k = statistics.fmean(k for _, k in after)
    spread = sum((t - mean_t) ** 2 for t, _ in after)
    slope = sum((t - mean_t) * (k - mean_k) for t, k in after) / spread if spread else 0.0
    return {"start_kib": start, "end_kib": end, "growth_kib": growth,
            "growth_percent": 100.0 * growth / start, "slope_kib_per_min": slope * 60,
            "limit_kib": limit, "flat": growth < limit, "samples_after_warmup": len(after),
            "peak_kib": max(k for _, k in samples)}
