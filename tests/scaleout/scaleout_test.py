"""Scale-out with real processes (issue 46): 3 tsserve replicas sharing one redis-server
behind nginx (HTTP and gRPC round robin, retry on refusal) answer as one server does.

    scaleout_test.py --tsserve BIN --work DIR --data ETTh1.csv --scenario NAME [--plant]
                     [--keys N] [--points N|all]

Scenarios (each prints what it measured; exit 1 with FAIL: and the reason, 77 SKIPPED when
redis-server or nginx is not installed):
  as_one_server       ETTh1's test split fed through Observe for --keys keys (each its
                      seq_len history in one call, then --points points one at a time with
                      the next forecast), every call through nginx: the even keys by HTTP
                      (POST /v1/series/K/observe on nginx's HTTP port), the odd keys by gRPC
                      (tsserve.v1 Observe on nginx's gRPC port); the same calls by the same
                      protocol to one tsserve on its in-process store: every answer
                      (forecast, flagged points, window size; request ids and timings aside)
                      bitwise equal, 0 errors, the live accuracy counters summed over the
                      replicas equal to the single server's (counts exactly, sums within 1e-9
                      relative). --plant: the replicas on their in-process stores; the check
                      must report the difference (exit 0 when it does).
                      CI feeds the default --points 24 (its time budget: ~15 s); the issue's
                      whole test split is --points all (each key fed to the end of the split,
                      2,880 - 7k points for key k: 135,425 points, 135,475 calls with the
                      histories for 50 keys), run by hand (25 min 44 s on the 2-core machine):
                        python3 tests/scaleout/scaleout_test.py --tsserve build/server/tsserve
                          --work /tmp/scaleout-full --data ../shared/data/ETTh1.csv
                          --scenario as_one_server --keys 50 --points all
  rolling_restart     during the feed (HTTP and gRPC keys, as above), each replica in turn
                      SIGTERMed (it must drain, exit 0) and started again on its ports: 0
                      failed calls (nginx passes an HTTP call to the next replica on a
                      refusal or a 503; a gRPC call on a refused connection, while UNAVAILABLE
                      from a draining replica reaches the feeder, which sends it again: the
                      retry a gRPC client's policy makes), every answer equal to the single
                      server's, and each key's next forecast after the feed too.
  replica_killed      kill -9 of one replica mid-feed: the keys go on through the others;
                      every acknowledged point is in the window (the answers and each key's
                      next forecast equal a single server fed exactly the stored points).
  redis_restart       redis-server (AOF always) killed mid-feed: calls answer 503 naming the
                      series store while it is down (the feeder retries them), then it is
                      started again on its port and folder: service resumes with no tsserve
                      restart, nothing acknowledged lost.
  concurrent_writers  two replicas, two threads sending the same timestamps to one key at
                      once (one value each): each timestamp accepted exactly once, the other
                      refused 400 naming it; the window holds the accepted points in order.
                      --plant: TSSERVE_TEST_SERIES_STORE_NO_CAS=1 (no compare-and-set) on both
                      replicas; the check must see a timestamp accepted twice (exit 0 when
                      it does, within --attempts rounds).
"""

import argparse
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster  # noqa: E402
from cluster import check, wait_until  # noqa: E402

STRIDE = 7  # key k's series starts k * STRIDE rows into the test split
RETRYABLE = (None, 502, 503, 504)
# What a gRPC caller must retry itself through nginx: its gRPC server block passes a call
# to the next replica only when the connection to one is refused or does not connect in
# time (grpc_next_upstream error timeout). UNAVAILABLE from a draining replica or a store
# outage travels in an HTTP 200's trailers, and a replica lost mid-call is nginx's 502 (no
# non_idempotent: a sent call is not passed on): both reach the caller as UNAVAILABLE.
# UNAVAILABLE means the call did nothing, as tsserve's 503 does, except for a replica lost
# mid-call that had stored the point: the retry is then refused as a duplicate, counted as
# stored with the answer lost (as nginx's own HTTP retry of such a call is).
GRPC_RETRYABLE = ("UNAVAILABLE",)
GRPC_RETRYABLE_ALWAYS = GRPC_RETRYABLE + ("DEADLINE_EXCEEDED",)  # with Feed's retry


class Feed:
    """Feeds keys point by point through `door` (nginx's port) and the same stored points to
    `single` (the in-process store), comparing each acknowledged answer. `retry`: a call
    that got no answer or a 5xx is sent again (bounded) until acknowledged; a 400 refusing
    its timestamp as already held means an earlier try (ours, or nginx's retry of a call a
    dying replica had stored) stored it: counted as stored with the answer lost, and the
    window checks then show whether it is there. Without `retry` every call that is not 200
    is a failure.

    `grpc`: (door's gRPC port, single's gRPC port, cluster.GrpcObserver): the odd keys go
    by gRPC Observe instead, to those ports; their answers are compared with the single
    server's gRPC answers the same way. A gRPC UNAVAILABLE is always sent again (bounded
    by the same deadline): nginx cannot retry it (GRPC_RETRYABLE), so the caller does."""

    def __init__(self, rows, keys, door, single, prefix, retry=False, threads=4,
                 retry_deadline_s=90, windows_only=False, grpc=None):
        self.rows, self.keys, self.door, self.single = rows, keys, door, single
        self.prefix, self.retry, self.threads = prefix, retry, threads
        self.retry_deadline_s = retry_deadline_s
        self.grpc = grpc
        self.lock = threading.Lock()
        self.acked = 0
        self.acked_by = {"HTTP": 0, "gRPC": 0}  # acknowledged calls, by protocol
        self.tries_by = {"HTTP": 0, "gRPC": 0}  # tries through the door, by protocol
        self.failures = []        # (key, timestamp, status, error) of calls not acknowledged
        self.retried = []         # (key, timestamp, status, error) of tries sent again
        self.stored_unacked = []  # (key, timestamp): stored by a try whose answer was lost
        self.differences = []
        # windows_only: a difference is one of the window (its size, the forecast made from
        # it); the flags judged against kept forecasts may differ after a fault (a forecast
        # computed while the store went down is answered but not kept, forecast_stored
        # false; a try whose answer was lost kept none) and are counted here instead.
        self.windows_only = windows_only
        self.kept_differences = []
        self.next_point = {}      # key -> index of its next point (into its own series)
        self.stop = threading.Event()
        self.workers = []

    def key(self, k):
        return "%s-%d" % (self.prefix, k)

    def series(self, k):
        return self.rows[k * STRIDE:]

    def _record(self, what, item):
        with self.lock:
            what.append(item)

    def protocol(self, k):
        return "gRPC" if self.grpc is not None and k % 2 == 1 else "HTTP"

    def _observe(self, protocol, which, key, points, forecast):
        """(ok, status, answer) of one Observe to the door or the single server."""
        if protocol == "gRPC":
            door_port, single_port, observer = self.grpc
            status, answer = observer.observe(door_port if which == "door" else single_port,
                                              key, points, forecast)
            return status == "OK", status, answer
        status, answer = cluster.observe(self.door if which == "door" else self.single,
                                         key, points, forecast)
        return status == 200, status, answer

    def _retryable(self, protocol, status):
        if protocol == "gRPC":
            return status in (GRPC_RETRYABLE_ALWAYS if self.retry else GRPC_RETRYABLE)
        return self.retry and status in RETRYABLE

    def send(self, k, points, forecast):
        """One call for key k through the door (tried again as `retry` says; a gRPC
        UNAVAILABLE always) and, once it is stored, to the single server by the same
        protocol; compares the answers when both came."""
        key, timestamp = self.key(k), points[0][0]
        protocol = self.protocol(k)
        deadline = time.monotonic() + self.retry_deadline_s
        tried_before = False
        while True:
            ok, status, answer = self._observe(protocol, "door", key, points, forecast)
            with self.lock:
                self.tries_by[protocol] += 1
            if ok or not self._retryable(protocol, status):
                break
            self._record(self.retried, (key, timestamp, status, answer.get("error", "")))
            tried_before = True
            if time.monotonic() > deadline:
                break
        single_ok, single_status, single_answer = self._observe(protocol, "single", key, points,
                                                                forecast)
        if ok:
            if not single_ok:
                self._record(self.differences, "%s t=%d: replicas answered, one server %s %s" % (
                    key, timestamp, single_status, single_answer.get("error", "")))
            elif cluster.comparable(answer) != cluster.comparable(single_answer):
                answer, single_answer = cluster.as_dict(answer), cluster.as_dict(single_answer)
                where = "%s t=%d: answers differ at %s" % (
                    key, timestamp, cluster.first_difference(answer, single_answer))
                window_differs = cluster.window_of(answer) != cluster.window_of(single_answer)
                if window_differs:
                    where += " (in the window: %s)" % cluster.first_difference(
                        json.loads(cluster.window_of(answer)),
                        json.loads(cluster.window_of(single_answer)))
                self._record(self.differences if window_differs or not self.windows_only
                             else self.kept_differences, where)
            with self.lock:
                self.acked += 1
                self.acked_by[protocol] += 1
            return True
        # A duplicate refusal of a point this feeder has had no answer for: an earlier try,
        # ours or nginx's (a replica killed after storing, before answering), stored it.
        if (tried_before or self.retry) and cluster.is_duplicate_refusal(status, answer, timestamp):
            self._record(self.stored_unacked, (key, timestamp))
            return True
        self._record(self.failures, (key, timestamp, status, answer.get("error", "")))
        return False

    def history(self):
        for k in range(self.keys):
            self.send(k, self.series(k)[:cluster.SEQ_LEN], False)
            self.next_point[k] = cluster.SEQ_LEN

    def _feed(self, my_keys, points):
        """`points` points to each of my_keys, a point to each in turn; None: each key to
        the end of its series (the test split's end)."""
        fed = 0
        while points is None or fed < points:
            fed += 1
            advanced = False
            for k in my_keys:
                if self.stop.is_set():
                    return
                i = self.next_point[k]
                if points is None and i >= len(self.series(k)):
                    continue
                check(i < len(self.series(k)), "the test split ran out for key %d" % k)
                self.send(k, self.series(k)[i:i + 1], True)
                self.next_point[k] = i + 1
                advanced = True
            if not advanced:
                return

    def points_fed(self):
        """Points sent one at a time after the history, over all keys."""
        return sum(i - cluster.SEQ_LEN for i in self.next_point.values())

    def start(self, points):
        """Threads feeding `points` points to every key (None: to the end of each key's
        series; or until stop())."""
        for t in range(self.threads):
            worker = threading.Thread(target=self._feed,
                                      args=(list(range(t, self.keys, self.threads)), points))
            worker.start()
            self.workers.append(worker)

    def join(self, timeout_s=600):
        for worker in self.workers:
            worker.join(timeout_s)
            check(not worker.is_alive(), "a feeder thread is still running after %s s" % timeout_s)
        self.workers = []

    def acked_count(self):
        with self.lock:
            return self.acked

    def wait_progress(self, calls, timeout_s, what):
        """Waits for `calls` more acknowledged calls than now."""
        target = self.acked_count() + calls
        wait_until(lambda: self.acked_count() >= target, timeout_s, what)

    def final_check(self):
        """Each key's next point with the next forecast, through the door and to the single
        server: equal answers mean the window holds exactly the stored points."""
        before = len(self.differences)
        failed = len(self.failures)
        for k in range(self.keys):
            i = self.next_point[k]
            self.send(k, self.series(k)[i:i + 1], True)
            self.next_point[k] = i + 1
        return len(self.differences) - before, len(self.failures) - failed

    def by_protocol(self):
        return ", ".join("%s %d acknowledged of %d tries" % (p, self.acked_by[p], self.tries_by[p])
                         for p in ("HTTP", "gRPC"))

    def summary(self):
        text = ("%d calls acknowledged (%s), %d failed, %d tries sent again, %d stored with the "
                "answer lost, %d answers differing from the single server's" % (
                    self.acked, self.by_protocol(), len(self.failures), len(self.retried),
                    len(self.stored_unacked), len(self.differences)))
        if self.windows_only:
            text += (" in their window (size or forecast); %d differing only in flags judged "
                     "against kept forecasts%s" % (len(self.kept_differences),
                                                   (" (" + first(self.kept_differences, 2) + ")")
                                                   if self.kept_differences else ""))
        return text


def first(items, n=5):
    return "; ".join(str(i) for i in items[:n]) + (" ..." if len(items) > n else "")


class Cluster:
    """redis-server, `replicas` tsserve sharing it (or on their own stores: `shared`
    False), nginx over them, and the single server on its in-process store."""

    def __init__(self, opts, cleanup, replicas=3, shared=True, env=None, balancer=True):
        work = opts.work
        self.redis = cleanup.add(cluster.Redis(cluster.fresh_folder(os.path.join(work, "redis"))))
        url = self.redis.url if shared else None
        self.replicas = [cleanup.add(cluster.start_server(opts.tsserve, work, "replica%d" % i,
                                                          store_url=url, env=env))
                         for i in range(replicas)]
        self.single = cleanup.add(cluster.start_server(opts.tsserve, work, "single"))
        self.nginx = None
        if balancer:
            self.nginx = cleanup.add(cluster.Nginx(os.path.join(work, "nginx"),
                                                   [r.http_port for r in self.replicas],
                                                   [r.port for r in self.replicas]))
            print("nginx on %d (HTTP) over %s and %d (gRPC) over %s (%s); redis on %d (AOF "
                  "always); one server on %d (HTTP), %d (gRPC)"
                  % (self.nginx.port, ", ".join(str(r.http_port) for r in self.replicas),
                     self.nginx.grpc_port, ", ".join(str(r.port) for r in self.replicas),
                     self.nginx.which, self.redis.port, self.single.http_port, self.single.port))

    def grpc(self, opts, cleanup):
        """Feed's `grpc`: nginx's gRPC port, the single server's, and an observer."""
        grpc_stubs(opts)
        observer = cleanup.add(cluster.GrpcObserver())
        return (self.nginx.grpc_port, self.single.port, observer)


def as_one_server(opts, rows, cleanup):
    started = time.monotonic()
    fleet = Cluster(opts, cleanup, shared=not opts.plant)
    feed = Feed(rows, opts.keys, fleet.nginx.port, fleet.single.http_port, "key",
                grpc=fleet.grpc(opts, cleanup))
    feed.history()
    feed.start(opts.points)
    feed.join(timeout_s=None if opts.points is None else 600)
    accuracy, series = cluster.accuracy_differences(fleet.replicas, fleet.single)
    scored = fleet.single.metric_sum("tsserve_forecast_scored_points_total")
    points = ("%d points" % opts.points if opts.points is not None else
              "the rest of the test split: %d points in all" % feed.points_fed())
    print("as one server%s: %d keys x (%d history + %s, each with the next forecast), "
          "%.1f s: %s; accuracy: %d series compared (one server scored %d points), %d differ" % (
              " (PLANT: replicas on in-process stores)" if opts.plant else "", opts.keys,
              cluster.SEQ_LEN, points, time.monotonic() - started, feed.summary(), series,
              scored, len(accuracy)))
    findings = []
    if feed.failures:
        findings.append("%d calls failed: %s" % (len(feed.failures), first(feed.failures)))
    if feed.retried:  # nothing drains or fails here: a gRPC UNAVAILABLE is an error too
        findings.append("%d tries answered UNAVAILABLE and sent again: %s" % (
            len(feed.retried), first(feed.retried)))
    if feed.differences:
        findings.append("%d answers differ from one server's: %s" % (
            len(feed.differences), first(feed.differences)))
    if accuracy:
        findings.append("live accuracy summed over the replicas differs from one server's: %s"
                        % first(accuracy))
    check(series > 0 and scored > 0, "no live accuracy on /metrics to compare (%d series, %d "
          "points scored)" % (series, scored))
    if opts.plant:
        check(findings and (feed.differences or accuracy),
              "PLANT not detected: replicas on separate in-process stores answered as one "
              "server (%s)" % feed.summary())
        print("plant detected, as it must be: %s" % " | ".join(findings))
        return
    check(not findings, " | ".join(findings))


def rolling_restart(opts, rows, cleanup):
    fleet = Cluster(opts, cleanup)
    feed = Feed(rows, opts.keys, fleet.nginx.port, fleet.single.http_port, "roll",
                grpc=fleet.grpc(opts, cleanup))
    feed.history()
    feed.start(10 ** 6)  # until stopped
    drains = []
    try:
        feed.wait_progress(2 * opts.keys, 120, "the feed to start")
        for replica in fleet.replicas:
            code, seconds = replica.terminate()
            drains.append("%s exit %d after %.2f s" % (replica.name, code, seconds))
            check(code == 0, "%s did not drain: exit %d" % (replica.name, code))
            replica.restart()
            feed.wait_progress(opts.keys, 120, "calls acknowledged after %s's restart"
                               % replica.name)
    finally:
        feed.stop.set()
        feed.join()
    differ, failed = feed.final_check()
    print("rolling restart of %d replicas during the feed (%s): %s; nginx's upstream errors "
          "(tries it passed to the next replica): %s; each key's next forecast after: %d "
          "differ, %d failed" % (len(fleet.replicas), ", ".join(drains), feed.summary(),
                                 fleet.nginx.upstream_errors(), differ, failed))
    check(not feed.failures, "%d calls failed during the rolling restart: %s" % (
        len(feed.failures), first(feed.failures)))
    check(not feed.differences, "answers differ from one server fed the same points: %s"
          % first(feed.differences))


def replica_killed(opts, rows, cleanup):
    fleet = Cluster(opts, cleanup)
    feed = Feed(rows, opts.keys, fleet.nginx.port, fleet.single.http_port, "kill", retry=True,
                windows_only=True)
    feed.history()
    feed.start(10 ** 6)
    try:
        feed.wait_progress(2 * opts.keys, 120, "the feed to start")
        victim = fleet.replicas[0]
        victim.kill9()
        acked_at_kill = feed.acked_count()
        feed.wait_progress(2 * opts.keys, 120, "calls acknowledged by the other replicas")
    finally:
        feed.stop.set()
        feed.join()
    differ, failed = feed.final_check()
    held = [feed.key(k) for k in range(opts.keys)
            if fleet.redis.cli("EXISTS", "tsserve:w:" + feed.key(k)) == "1"]
    print("kill -9 of %s after %d acknowledged calls: %s; nginx's upstream errors %s; each "
          "key's next forecast after: %d differ, %d failed; %d of %d windows in redis" % (
              victim.name, acked_at_kill, feed.summary(), fleet.nginx.upstream_errors(), differ,
              failed, len(held), opts.keys))
    check(not feed.failures, "%d calls failed after the kill: %s" % (
        len(feed.failures), first(feed.failures)))
    check(not feed.differences, "a window lost an acknowledged point (answers differ from one "
          "server fed the stored points): %s" % first(feed.differences))
    check(len(held) == opts.keys, "only %d of %d keys' windows are in redis" % (len(held), opts.keys))


def redis_restart(opts, rows, cleanup):
    grpc_stubs(opts)
    fleet = Cluster(opts, cleanup)
    pids = [r.pid for r in fleet.replicas]
    feed = Feed(rows, opts.keys, fleet.nginx.port, fleet.single.http_port, "redis", retry=True,
                windows_only=True)
    feed.history()
    feed.start(10 ** 6)
    try:
        feed.wait_progress(2 * opts.keys, 120, "the feed to start")
        fleet.redis.kill9()
        killed = time.monotonic()
        acked_at_kill = feed.acked_count()
        wait_until(lambda: len([r for r in feed.retried if r[2] == 503]) >= 10, 60,
                   "calls answered 503 while redis is down")
        refused_while_down = list(feed.retried)
        grpc_code, grpc_details = grpc_observe(fleet.replicas[0], rows)
        up_while_down = fleet.replicas[0].metric_sum("tsserve_series_store_up")
        fleet.redis.start()
        restarted = time.monotonic()
        feed.wait_progress(2 * opts.keys, 120, "service to resume after redis came back")
        resumed = time.monotonic()
    finally:
        feed.stop.set()
        feed.join()
    differ, failed = feed.final_check()
    up_after = [r.metric_sum("tsserve_series_store_up") for r in fleet.replicas]
    failures_counted = sum(r.metric_sum("tsserve_series_store_failures_total")
                           for r in fleet.replicas)
    statuses = {}
    for _, _, status, _ in refused_while_down:
        statuses[status] = statuses.get(status, 0) + 1
    naming = "series store %s: " % fleet.redis.url
    unnamed = [r for r in refused_while_down if r[2] == 503 and not r[3].startswith(naming)]
    print("redis-server killed after %d acknowledged calls, down %.2f s: tries answered %s "
          "(e.g. %r); service resumed %.2f s after its restart; %s; each key's next forecast "
          "after: %d differ, %d failed" % (
              acked_at_kill, restarted - killed, statuses,
              refused_while_down[0][3] if refused_while_down else "", resumed - restarted,
              feed.summary(), differ, failed))
    print("while down: gRPC Observe on %s answered %s %r, its tsserve_series_store_up %g; after: "
          "tsserve_series_store_up %s, tsserve_series_store_failures_total summed %g" % (
              fleet.replicas[0].name, grpc_code, grpc_details, up_while_down, up_after,
              failures_counted))
    check(grpc_code == "UNAVAILABLE" and grpc_details.startswith(naming),
          "gRPC Observe while redis was down: %s %r, expected UNAVAILABLE starting %r" % (
              grpc_code, grpc_details, naming))
    check(up_while_down == 0 and up_after == [1.0] * len(fleet.replicas) and failures_counted > 0,
          "tsserve_series_store_up / _failures_total do not show the outage and the recovery")
    check(all(r.process.poll() is None for r in fleet.replicas) and
          [r.pid for r in fleet.replicas] == pids, "a replica exited or was restarted")
    check(set(statuses) == {503}, "while redis was down, calls answered %s, expected only 503"
          % statuses)
    check(not unnamed, "503 answers not naming the store (%r...): %s" % (naming, first(unnamed)))
    check(not feed.failures, "%d calls were never acknowledged: %s" % (
        len(feed.failures), first(feed.failures)))
    check(not feed.differences, "a window lost an acknowledged point (answers differ from one "
          "server fed the acknowledged points): %s" % first(feed.differences))


def grpc_stubs(opts):
    """tsserve.v1's Python stubs, generated as tests/e2e/oip_client_check.py does."""
    from oip_client_check import generate_stubs
    generate_stubs(os.path.join(opts.work, "stubs"))


def grpc_observe(replica, rows):
    """(code name, details) of one gRPC Observe (a new key, its first point) on `replica`."""
    import grpc
    from tsserve.v1 import forecast_service_pb2 as v1, forecast_service_pb2_grpc as v1_grpc
    t, values = rows[0]
    request = v1.ObserveRequest(series_key="grpc-while-down", model=cluster.MODEL,
                                variable_names=cluster.COLUMNS, timestamps=[t],
                                values=[values[c] for c in cluster.COLUMNS])
    with grpc.insecure_channel(replica.target) as channel:
        try:
            v1_grpc.ForecastServiceStub(channel).Observe(request, timeout=30)
        except grpc.RpcError as error:
            return error.code().name, error.details()
    return "OK", ""


def contest(rows, replicas, single, key, contested):
    """One key: its history through replica 0, then `contested` timestamps each sent at once
    by two threads (one per replica, values differing by 1). Returns (timestamps accepted
    twice, timestamps accepted by neither, 400s not naming their timestamp, the final
    answers' difference from the single server fed the accepted points or None)."""
    history = cluster.SEQ_LEN - contested - 1
    series = rows[:cluster.SEQ_LEN]
    status, answer = cluster.observe(replicas[0].http_port, key, series[:history], False)
    check(status == 200, "history of %s: %s %s" % (key, status, answer))
    cluster.observe(single.http_port, key, series[:history], False)
    barrier = threading.Barrier(2)
    outcomes = [[None] * contested, [None] * contested]

    def writer(w):
        for i in range(contested):
            t, values = series[history + i]
            mine = [(t, {c: v + w for c, v in values.items()})]
            barrier.wait(timeout=60)
            outcomes[w][i] = (mine,) + cluster.observe(replicas[w].http_port, key, mine, False)

    threads = [threading.Thread(target=writer, args=(w,)) for w in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
        check(not thread.is_alive(), "a writer is still running")
    twice, neither, unnamed, won = [], [], [], [0, 0]
    for i in range(contested):
        t = series[history + i][0]
        accepted = [o for o in (outcomes[0][i], outcomes[1][i]) if o[1] == 200]
        refused = [o for o in (outcomes[0][i], outcomes[1][i]) if o[1] != 200]
        if len(accepted) == 2:
            twice.append(t)
        elif not accepted:
            neither.append((t, [(o[1], o[2].get("error")) for o in refused]))
        for o in refused:
            if not cluster.is_duplicate_refusal(o[1], o[2], t):
                unnamed.append((t, o[1], o[2].get("error")))
        for w in (0, 1):
            won[w] += outcomes[w][i][1] == 200
        if accepted:
            cluster.observe(single.http_port, key, accepted[-1][0], False)
    last = series[history + contested:history + contested + 1]  # the window's 336th point
    status, answer = cluster.observe(replicas[1].http_port, key, last, True)
    single_status, single_answer = cluster.observe(single.http_port, key, last, True)
    difference = None
    if status != 200 or single_status != 200:
        difference = "final call: replicas %s %s, one server %s %s" % (
            status, answer.get("error"), single_status, single_answer.get("error"))
    elif cluster.comparable(answer) != cluster.comparable(single_answer):
        difference = "final window differs (window_points %s, one server %s)" % (
            answer.get("window_points"), single_answer.get("window_points"))
    return twice, neither, unnamed, difference, won


def concurrent_writers(opts, rows, cleanup):
    env = {"TSSERVE_TEST_SERIES_STORE_NO_CAS": "1"} if opts.plant else None
    fleet = Cluster(opts, cleanup, replicas=2, env=env, balancer=False)
    contested = 60
    for attempt in range(1, opts.attempts + 1):
        key = "contest-%d" % attempt
        twice, neither, unnamed, difference, won = contest(rows, fleet.replicas, fleet.single, key,
                                                      contested)
        print("concurrent writers%s, round %d: %d timestamps sent by both replicas at once: "
              "accepted by replica0 %d, by replica1 %d; %d accepted twice, %d by neither, %d "
              "refusals not naming their timestamp, final window %s" % (
                  " (PLANT: no compare-and-set)" if opts.plant else "", attempt, contested,
                  won[0], won[1], len(twice), len(neither), len(unnamed),
                  difference or "equal to one server fed the accepted points"))
        found = twice or neither or unnamed or difference
        if opts.plant:
            if found:
                print("plant detected, as it must be, in round %d: accepted twice %s" % (
                    attempt, first(twice)))
                return
            continue
        check(not twice, "timestamps accepted by both writers: %s" % first(twice))
        check(not neither, "timestamps accepted by neither writer: %s" % first(neither))
        check(not unnamed, "refusals that do not name the timestamp as held: %s" % first(unnamed))
        check(difference is None, difference or "")
        if attempt >= 3:
            return
    check(not opts.plant, "PLANT not detected in %d rounds of %d contested timestamps: without "
          "the compare-and-set no race was provoked" % (opts.attempts, contested))


SCENARIOS = {"as_one_server": as_one_server, "rolling_restart": rolling_restart,
             "replica_killed": replica_killed, "redis_restart": redis_restart,
             "concurrent_writers": concurrent_writers}


def points_argument(text):
    """--points: a count, or "all" (None: each key to the end of the test split)."""
    if text == "all":
        return None
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("--points must be a count >= 0 or \"all\"")
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tsserve", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--data", required=True, help="ETTh1.csv")
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--plant", action="store_true")
    parser.add_argument("--keys", type=int, default=50)
    parser.add_argument("--points", type=points_argument, default=24,
                        help="as_one_server: points fed to each key after its history, or "
                             "\"all\": each key to the end of the test split")
    parser.add_argument("--attempts", type=int, default=10,
                        help="concurrent_writers --plant: rounds to provoke a race")
    opts = parser.parse_args()
    cluster.skip_unless_installed()
    rows = cluster.read_test_split(opts.data)
    cluster.fresh_folder(opts.work)
    with cluster.Cleanup() as cleanup:
        SCENARIOS[opts.scenario](opts, rows, cleanup)
    print("PASS")


if __name__ == "__main__":
    cluster.run_main(main)
