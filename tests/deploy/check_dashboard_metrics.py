"""The dashboard and the alert rules query only what tsserve really exports.

    /usr/bin/python3 tests/deploy/check_dashboard_metrics.py --tsserve BIN --work DIR

Starts the real tsserve binary on free loopback ports, drives it through a forecast with
intervals, ReportActuals and Observe (HTTP JSON API), reads the metric names from its
/metrics (a histogram family F is queried as F_bucket, F_sum and F_count), and checks
every PromQL expression in deploy/grafana/dashboards/*.json (panels and template
variables) and deploy/prometheus/alerts.yml against them. Also checks that the dashboard
has the panels operators need (the list in docs/deployment.md's compose section) and that
compose, Prometheus and Grafana point at each other (service names, ports, datasource uid,
mount paths).
"""

import argparse
import glob
import json
import math
import os
import re
import select
import subprocess
import sys
import urllib.error
import urllib.request

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = os.path.join(ROOT, "deploy")

# Series Prometheus makes itself for every target; the TsserveDown alert needs `up`.
PROMETHEUS_SERIES = {"up"}

# Every tsserve_* series a query names must be in the real scrape: the scraped server is
# driven through a forecast with intervals, ReportActuals (POST /v1/actuals) and Observe
# (POST /v1/series/K/observe) first, so the interval and live-series families exist;
# there is no list of names allowed without being scraped.
MODEL = "patchtst-etth1"
COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
SEQ_LEN = 336
HOUR = 3600
START = 1467331200  # 2016-07-01 00:00 UTC

# PromQL words that are not metric names (operators, modifiers, literals).
KEYWORDS = {"and", "or", "unless", "bool", "by", "without", "on", "ignoring", "group_left",
            "group_right", "offset", "inf", "nan", "Inf", "NaN"}


def exported_names(exposition):
    """Series names a query may use, from the # TYPE lines and the samples."""
    names = set()
    for line in exposition.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            name, kind = m.groups()
            if kind in ("histogram", "summary"):
                names.update({name + "_sum", name + "_count"})
                if kind == "histogram":
                    names.add(name + "_bucket")
            else:
                names.add(name)
        elif line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


def metric_names(expr):
    """Metric names a PromQL expression selects (Grafana's $variables allowed)."""
    names = set()
    # label_values(metric{...}, label) in template variables: the label is no metric.
    for m in re.finditer(r"label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)?[^,()]*,\s*\w+\s*\)", expr):
        if m.group(1):
            names.add(m.group(1))
    expr = re.sub(r"label_values\([^()]*\)", " ", expr)
    s = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)   # strings
    s = re.sub(r"\{[^{}]*\}", " ", s)                                  # label matchers
    s = re.sub(r"\[[^\[\]]*\]", " ", s)                                # ranges, subqueries
    s = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)", " ", s)
    s = re.sub(r"\boffset\s+\S+", " ", s)
    for m in re.finditer(r"(?<![\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*", s):
        if s[m.end():].lstrip().startswith("("):
            continue  # a function or an aggregation
        if m.group(0) not in KEYWORDS:
            names.add(m.group(0))
    return names


def self_test():
    """The extractor finds names where they hide, so an empty result is no false pass."""
    cases = {
        'histogram_quantile(0.99, sum by (job, le) (rate(a_bucket{method="x"}[5m]))) > 0.5': {"a_bucket"},
        'sum(rate(b_total{code=~"A|B"}[$__rate_interval])) / sum(rate(c_total{instance=~"$i"}[1m])) > 1e-3': {"b_total", "c_total"},
        "d == 0 or up{job=\"t\"} == 0": {"d", "up"},
        "label_values(e{x=\"1\"}, instance)": {"e"},
        "max by (instance, name) (f) * on (instance) group_left (version) g": {"f", "g"},
    }
    for expr, expected in cases.items():
        got = metric_names(expr)
        if got != expected:
            fail("extractor: %r gave %s, expected %s" % (expr, got, expected))


def fail(message):
    """The pass check: explicit, so it holds under PYTHONOPTIMIZE (not an assert)."""
    print("FAIL:", message)
    sys.exit(1)


def post(port, path, body):
    """(status, JSON answer) of a POST with Content-Type: application/json."""
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path),
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read().decode())
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wave(t, v):
    return 10 * math.sin(t / 24 + v) + v


def drive(http_port):
    """A forecast with intervals and the actuals of its first steps (ReportActuals), then a
    live series through Observe: a window with forecast, then points checked against it."""
    stamps = [START + HOUR * t for t in range(SEQ_LEN + 4)]
    status, answer = post(http_port, "/v1/models/%s/forecast" % MODEL, {
        "series": {c: [wave(t, v) for t in range(SEQ_LEN)] for v, c in enumerate(COLUMNS)},
        "timestamps": stamps[:SEQ_LEN], "intervals": [0.8], "series_key": "dashboard"})
    if status != 200:
        fail("forecast with intervals: HTTP %d %s" % (status, answer))
    status, answer = post(http_port, "/v1/actuals", {
        "series_key": "dashboard", "timestamps": stamps[SEQ_LEN:SEQ_LEN + 2],
        "actuals": {c: [wave(t, v) for t in range(SEQ_LEN, SEQ_LEN + 2)]
                    for v, c in enumerate(COLUMNS)}})
    if status != 200:
        fail("ReportActuals: HTTP %d %s" % (status, answer))
    print("ReportActuals answered: %s" % json.dumps(answer)[:200])
    for first, last in ((0, SEQ_LEN), (SEQ_LEN, SEQ_LEN + 2)):
        status, answer = post(http_port, "/v1/series/live/observe", {
            "timestamps": stamps[first:last], "forecast": True,
            "values": {c: [wave(t, v) for t in range(first, last)] for v, c in enumerate(COLUMNS)}})
        if status != 200:
            fail("Observe rows %d..%d: HTTP %d %s" % (first, last, status, answer))


def scrape_real_server(tsserve, work):
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "tsserve.log"), "w") as log:
        server = subprocess.Popen([tsserve, "--grpc-address", "127.0.0.1:0",
                                   "--http-address", "127.0.0.1:0",
                                   "--metrics-address", "127.0.0.1:0"],
                                  stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            # One "tsserve listening ..." line on stdout once it serves; wait for it, bounded.
            ready, _, _ = select.select([server.stdout], [], [], 120)
            line = server.stdout.readline() if ready else ""
            m = re.search(r"metrics_port=(\d+)", line)
            h = re.search(r"http_port=(\d+)", line)
            if not (m and h):
                fail("tsserve did not report listening: %r (log in %s)" % (line, work))
            drive(int(h.group(1)))
            url = "http://127.0.0.1:%s/metrics" % m.group(1)
            exposition = urllib.request.urlopen(url, timeout=30).read().decode()
        finally:
            server.terminate()
            code = server.wait(timeout=60)
    if code != 0:
        fail("tsserve exited %d after SIGTERM" % code)
    with open(os.path.join(work, "metrics.txt"), "w") as f:
        f.write(exposition)
    return exposition


def dashboard_expressions(path):
    with open(path) as f:
        dashboard = json.load(f)
    exprs = []

    def walk(node, where):
        if isinstance(node, dict):
            title = node.get("title", where)
            if isinstance(node.get("expr"), str):
                exprs.append((title, node["expr"]))
            for key, value in node.items():
                walk(value, title)
        elif isinstance(node, list):
            for item in node:
                walk(item, where)

    walk(dashboard.get("panels", []), "panel")
    for variable in dashboard.get("templating", {}).get("list", []):
        query = variable.get("query")
        text = query.get("query") if isinstance(query, dict) else query
        if variable.get("type") == "query" and text:
            exprs.append(("variable $" + variable["name"], text))
    return dashboard, exprs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    self_test()

    exported = exported_names(scrape_real_server(args.tsserve, args.work))
    tsserve_names = sorted(n for n in exported if n.startswith("tsserve_"))
    print("tsserve exports %d series names: %s" % (len(tsserve_names), ", ".join(tsserve_names)))
    allowed = exported | PROMETHEUS_SERIES

    failures = []
    used = set()
    checked = 0
    dashboards = sorted(glob.glob(os.path.join(DEPLOY, "grafana", "dashboards", "*.json")))
    if not dashboards:
        fail("no dashboards under deploy/grafana/dashboards")
    sources = []
    for path in dashboards:
        dashboard, exprs = dashboard_expressions(path)
        sources += [(os.path.relpath(path, ROOT) + ": " + where, e) for where, e in exprs]
        uids = {t.get("datasource", {}).get("uid") for p in dashboard["panels"] for t in p.get("targets", [])}
        if uids != {"prometheus"}:
            failures.append("%s: panels use datasource uids %s; the provisioned one is 'prometheus'" % (path, uids))
    with open(os.path.join(DEPLOY, "prometheus", "alerts.yml")) as f:
        rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
    sources += [("alerts.yml: " + r.get("alert", r.get("record", "?")), r["expr"]) for r in rules]
    for where, expr in sources:
        names = metric_names(expr)
        checked += 1
        if not names:
            failures.append("%s: no metric found in %r" % (where, expr))
        for name in sorted(names - allowed):
            failures.append("%s: '%s' is not exported by tsserve (expression: %s)" % (where, name, expr.strip()))
        used |= names
    print("checked %d expressions (%d dashboard, %d alert rules)" % (checked, checked - len(rules), len(rules)))

    # What the dashboard and the alerts must show (docs/deployment.md, docs/operations.md).
    dashboard_text = " ".join(e for w, e in sources if not w.startswith("alerts.yml"))
    wanted = {
        "request rate": r"rate\(tsserve_requests_total",
        "error rate by code": r"sum by \(code\) \(rate\(tsserve_requests_total\{[^}]*code!=\"OK\"",
        "latency p50": r"histogram_quantile\(0\.5, [^;]*tsserve_request_duration_seconds_bucket",
        "latency p90": r"histogram_quantile\(0\.9, [^;]*tsserve_request_duration_seconds_bucket",
        "latency p99": r"histogram_quantile\(0\.99, [^;]*tsserve_request_duration_seconds_bucket",
        "queue wait": r"tsserve_queue_wait_seconds_bucket",
        "compute": r"tsserve_compute_seconds_bucket",
        "batch rows": r"tsserve_batch_rows_(bucket|sum|count)",
        "queue depth": r"tsserve_queue_depth_rows",
        "in-flight": r"tsserve_inflight_requests",
        "live MAE": r"tsserve_forecast_abs_error_total",
        "interval coverage": r"tsserve_interval_covered_points_total",
        "live-series anomalies": r"tsserve_observed_outside_points_total",
    }
    for what, pattern in wanted.items():
        if not re.search(pattern, dashboard_text):
            failures.append("dashboard: no query for %s (/%s/)" % (what, pattern))
    alert_exprs = {r.get("alert"): r["expr"] for r in rules}
    for alert, name in (("TsserveHighErrorRatio", "tsserve_requests_total"),
                        ("TsserveHighLatencyP99", "tsserve_request_duration_seconds_bucket"),
                        ("TsserveNotReady", "tsserve_ready"),
                        ("TsserveIntervalCoverageBelowNominal",
                         "tsserve_interval_covered_points_total"),
                        ("TsserveObservedAnomalyRateHigh",
                         "tsserve_observed_outside_points_total")):
        if name not in metric_names(alert_exprs.get(alert, "")):
            failures.append("alerts.yml: %s should query %s" % (alert, name))

    failures += check_compose_wiring()
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    unused = sorted(n for n in tsserve_names if n not in used and not n.endswith(("_sum", "_count")))
    print("not on the dashboard or in alerts (informative): %s" % (", ".join(unused) or "none"))
    print("PASS: every query names an exported metric")


def check_compose_wiring():
    """compose.yaml, prometheus.yml and the Grafana provisioning agree with each other."""
    failures = []
    with open(os.path.join(DEPLOY, "compose.yaml")) as f:
        compose = yaml.safe_load(f)
    services = compose["services"]
    for service, spec in services.items():
        for volume in spec.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith((".", "/")) and not os.path.exists(os.path.join(DEPLOY, source)):
                failures.append("compose: %s mounts %s, which does not exist" % (service, source))
    with open(os.path.join(DEPLOY, "prometheus", "prometheus.yml")) as f:
        prometheus = yaml.safe_load(f)
    targets = [t for job in prometheus["scrape_configs"] for sc in job.get("static_configs", [])
               for t in sc["targets"]]
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        dockerfile = f.read()
    metrics_port = re.search(r"TSSERVE_METRICS_ADDRESS=[^:\s]*:(\d+)", dockerfile).group(1)
    # The replicas (deploy/compose.yaml runs several; check_scaleout_deploy.py checks the
    # rest of the scale-out layout): every one is scraped.
    replicas = sorted(n for n, s in services.items() if str(s.get("image", "")).startswith("tsserve:"))
    for replica in replicas:
        if ("%s:%s" % (replica, metrics_port)) not in targets:
            failures.append("prometheus.yml scrapes %s; the image serves metrics on %s:%s"
                            % (targets, replica, metrics_port))
    if not replicas or "prometheus" not in services or "grafana" not in services:
        failures.append("compose: services %s; expected tsserve replicas, prometheus, grafana" % sorted(services))
    with open(os.path.join(DEPLOY, "grafana", "provisioning", "datasources", "prometheus.yaml")) as f:
        datasource = yaml.safe_load(f)["datasources"][0]
    if datasource["uid"] != "prometheus" or datasource["url"] != "http://prometheus:9090":
        failures.append("grafana datasource %s/%s; expected uid prometheus at http://prometheus:9090"
                        % (datasource["uid"], datasource["url"]))
    with open(os.path.join(DEPLOY, "grafana", "provisioning", "dashboards", "tsserve.yaml")) as f:
        provider_path = yaml.safe_load(f)["providers"][0]["options"]["path"]
    mounts = {v.split(":")[1] for v in services["grafana"]["volumes"] if v.startswith(".")}
    if provider_path not in mounts:
        failures.append("grafana loads dashboards from %s; compose mounts %s" % (provider_path, sorted(mounts)))
    return failures


if __name__ == "__main__":
    main()
