"""deploy/compose.yaml's scale-out layout and deploy/nginx/, offline.

    /usr/bin/python3 tests/deploy/check_scaleout_deploy.py --work DIR [--plant]

1. compose: at least 2 tsserve replicas (services built from the Dockerfile), each with
   TSSERVE_SERIES_STORE naming the redis service's address; redis with its append-only file
   (appendonly yes, appendfsync everysec) in a named volume mounted at its --dir; nginx
   published on the ports the replicas serve, mounting deploy/nginx; Prometheus scraping
   every replica's metrics port (deploy/prometheus/prometheus.yml).
2. nginx: deploy/nginx/render.sh renders the template with compose's nginx environment
   (upstream names, listen ports) and, again, with loopback ports as the scale-out tests
   use it and without gRPC; `nginx -t` accepts each (run as any user: pid, logs and
   temporary files under DIR); the rendered upstreams are exactly the replicas' HTTP and
   gRPC ports, round robin (no hash or sticky directive), never marked down
   (max_fails=0), with `proxy_next_upstream error timeout http_503 non_idempotent` and
   `grpc_pass grpc://` with `grpc_next_upstream error timeout`.
3. HAProxy (deploy/haproxy/, the optional alternative): rendered with loopback ports, with
   and without gRPC, `haproxy -c` accepts it, its backends are those ports, round robin,
   HTTP retried on conn-failure and 503, gRPC servers over h2 (skipped without haproxy).
--plant: runs the checks against defects planted in copies (a wrong upstream port, a
replica without TSSERVE_SERIES_STORE, fsync always dropped from redis, a balancer that
does not retry 503 (nginx and HAProxy), a template nginx refuses) and passes only when every one is caught.
"""

import argparse
import copy
import os
import re
import shutil
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = os.path.join(ROOT, "deploy")
NGINX = "/usr/sbin/nginx"
HAPROXY = "/usr/sbin/haproxy"


def image_ports():
    """The ports the image's tsserve listens on (the Dockerfile's ENV defaults)."""
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        text = f.read()
    return {kind: re.search(r"TSSERVE_%s_ADDRESS=[^:\s]*:(\d+)" % kind.upper(), text).group(1)
            for kind in ("grpc", "http", "metrics")}


def replica_ports(spec, defaults):
    env = spec.get("environment") or {}
    ports = dict(defaults)
    for kind in ports:
        value = env.get("TSSERVE_%s_ADDRESS" % kind.upper())
        if value:
            ports[kind] = value.rsplit(":", 1)[1]
    return ports


def check_compose(compose, prometheus):
    failures = []
    services = compose["services"]
    replicas = {name: s for name, s in services.items()
                if (s.get("build") or {}).get("dockerfile") == "Dockerfile"
                or str(s.get("image", "")).startswith("tsserve:")}
    if len(replicas) < 2:
        failures.append("compose: %d tsserve replicas (%s); scale-out needs at least 2"
                        % (len(replicas), sorted(replicas)))
    redis = services.get("redis")
    if redis is None:
        failures.append("compose: no redis service")
        redis = {}
    command = redis.get("command") or []
    command = command.split() if isinstance(command, str) else [str(c) for c in command]
    args = dict(zip(command[1::2], command[2::2])) if command[:1] == ["redis-server"] else {}
    redis_port = args.get("--port", "6379")
    if args.get("--appendonly") != "yes":
        failures.append("compose: redis runs without --appendonly yes (command %s)" % command)
    if args.get("--appendfsync") not in ("everysec", "always"):
        failures.append("compose: redis --appendfsync is %s; everysec (docs) or always"
                        % args.get("--appendfsync"))
    data_dir = args.get("--dir", "/data")
    named = set((compose.get("volumes") or {}).keys())
    if not any(v.split(":")[0] in named and v.split(":")[1] == data_dir
               for v in redis.get("volumes") or []):
        failures.append("compose: redis's --dir %s is not a named volume (the AOF would die "
                        "with the container)" % data_dir)
    store_url = "redis://redis:%s/0" % redis_port
    defaults = image_ports()
    for name, spec in replicas.items():
        env = spec.get("environment") or {}
        if env.get("TSSERVE_SERIES_STORE") != store_url:
            failures.append("compose: %s has TSSERVE_SERIES_STORE=%r; expected %s (the shared "
                            "store)" % (name, env.get("TSSERVE_SERIES_STORE"), store_url))
        if spec.get("ports"):
            failures.append("compose: %s publishes %s; callers should go through nginx"
                            % (name, spec["ports"]))
    targets = {t for job in prometheus["scrape_configs"] for sc in job.get("static_configs", [])
               for t in sc["targets"]}
    for name, spec in replicas.items():
        target = "%s:%s" % (name, replica_ports(spec, defaults)["metrics"])
        if target not in targets:
            failures.append("prometheus.yml does not scrape %s (targets %s)" % (target, sorted(targets)))
    nginx = services.get("nginx")
    if nginx is None:
        failures.append("compose: no nginx service")
    else:
        if not any(v.split(":")[0] == "./nginx" for v in nginx.get("volumes") or []):
            failures.append("compose: nginx does not mount ./nginx (the template and render.sh)")
        command = " ".join(nginx.get("command") or []) if isinstance(nginx.get("command"), list) \
            else str(nginx.get("command") or "")
        m = re.search(r"render\.sh\s*>\s*(\S+).*\bnginx\s+-c\s+(\S+)", command)
        if not m or m.group(1) != m.group(2):
            failures.append("compose: nginx's command %r should render the template with render.sh "
                            "and start nginx -c on that file" % command)
        published = {p.split(":")[-1] for p in nginx.get("ports") or []}
        env = nginx.get("environment") or {}
        for kind, var in (("http", "TSSERVE_NGINX_HTTP_LISTEN"), ("grpc", "TSSERVE_NGINX_GRPC_LISTEN")):
            listen = str(env.get(var, "")).rsplit(":", 1)[-1]
            if listen not in published:
                failures.append("compose: nginx listens for %s on %r, publishes %s"
                                % (kind, listen, sorted(published)))
    return replicas, failures


def render(env, work, name, balancer="nginx"):
    """render.sh's output with `env`, pid/logs/temp files under work/name; (path, stderr)."""
    folder = os.path.join(work, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    full = {k: str(v) for k, v in env.items()}
    full.update(TSSERVE_NGINX_RUNTIME_DIR=folder,
                TSSERVE_NGINX_ERROR_LOG=os.path.join(folder, "error.log"),
                TSSERVE_NGINX_ACCESS_LOG=os.path.join(folder, "access.log"),
                PATH=os.environ.get("PATH", "/usr/bin:/bin"))
    for name in ("TSSERVE_NGINX_TEMPLATE", "TSSERVE_HAPROXY_TEMPLATE"):  # --plant's copies
        if os.environ.get(name):
            full[name] = os.environ[name]
    done = subprocess.run(["/bin/sh", os.path.join(DEPLOY, balancer, "render.sh")],
                          env=full, capture_output=True, text=True)
    if done.returncode != 0:
        return None, "%s/render.sh exited %d: %s" % (balancer, done.returncode, done.stderr.strip())
    path = os.path.join(folder, "nginx.conf" if balancer == "nginx" else "haproxy.cfg")
    with open(path, "w") as f:
        f.write(done.stdout)
    return path, ""


def nginx_test(path):
    """`nginx -t` on a rendered file, as any user (-e: the error log before the config)."""
    folder = os.path.dirname(path)
    done = subprocess.run([NGINX, "-t", "-q", "-c", path, "-p", folder,
                           "-e", os.path.join(folder, "error.log")],
                          capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def directives(text):
    """The rendered config without comments."""
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def upstream_block(text, name):
    m = re.search(r"upstream\s+%s\s*\{([^}]*)\}" % name, text)
    return m.group(1) if m else None


def check_rendered(path, http_servers, grpc_servers, where):
    """The rendered file's upstreams and retry rules; grpc_servers None = no gRPC block."""
    failures = []
    code, output = nginx_test(path)
    if code != 0:
        failures.append("%s: nginx -t refused the rendered config: %s" % (where, output[-800:]))
    with open(path) as f:
        text = directives(f.read())
    if "${" in text:
        failures.append("%s: placeholders left unrendered: %s" % (where, sorted(set(re.findall(r"\$\{\w*\}?", text)))))
    for name, wanted in (("tsserve_http", http_servers), ("tsserve_grpc", grpc_servers)):
        block = upstream_block(text, name)
        if wanted is None:
            if block is not None:
                failures.append("%s: upstream %s rendered without gRPC upstreams" % (where, name))
            continue
        if block is None:
            failures.append("%s: no upstream %s" % (where, name))
            continue
        servers = re.findall(r"^\s*server\s+(\S+)([^;]*);", block, re.M)
        got = sorted(address for address, _ in servers)
        if got != sorted(wanted):
            failures.append("%s: upstream %s has %s; the replicas are %s" % (where, name, got, sorted(wanted)))
        for address, params in servers:
            if "max_fails=0" not in params:
                failures.append("%s: %s in %s lacks max_fails=0 (a store outage's 503s would mark "
                                "every replica down: 502 'no live upstreams')" % (where, address, name))
        for word in ("hash", "ip_hash", "sticky", "least_conn", "random"):
            if re.search(r"^\s*%s\b" % word, block, re.M):
                failures.append("%s: upstream %s uses %s; round robin expected" % (where, name, word))
    rules = {m.group(1): set(m.group(2).split())
             for m in re.finditer(r"^\s*(proxy_next_upstream|grpc_next_upstream)\s+([^;]*);", text, re.M)}
    if not {"error", "timeout", "http_503", "non_idempotent"} <= rules.get("proxy_next_upstream", set()):
        failures.append("%s: proxy_next_upstream is %s; needs error timeout http_503 non_idempotent "
                        "(a draining replica's 503 retried elsewhere, POSTs included)"
                        % (where, sorted(rules.get("proxy_next_upstream", []))))
    if not re.search(r"^\s*proxy_pass\s+http://tsserve_http\s*;", text, re.M):
        failures.append("%s: no proxy_pass http://tsserve_http" % where)
    if grpc_servers is not None:
        if not {"error", "timeout"} <= rules.get("grpc_next_upstream", set()):
            failures.append("%s: grpc_next_upstream is %s; needs error timeout"
                            % (where, sorted(rules.get("grpc_next_upstream", []))))
        if not re.search(r"^\s*grpc_pass\s+grpc://tsserve_grpc\s*;", text, re.M):
            failures.append("%s: no grpc_pass grpc://tsserve_grpc" % where)
        if not re.search(r"^\s*listen\s+[^;]*\bhttp2\b[^;]*;", text, re.M):
            failures.append("%s: no listen ... http2 (gRPC needs HTTP/2)" % where)
    return failures


def check_nginx(compose, replicas, work):
    failures = []
    nginx = compose["services"].get("nginx") or {}
    env = dict(nginx.get("environment") or {})
    defaults = image_ports()
    ports = {name: replica_ports(spec, defaults) for name, spec in replicas.items()}
    # 1. As compose runs it (the replicas' service names resolve only on compose's network:
    # nginx -t resolves upstream names, so they are mapped to loopback in a copy).
    split = lambda value: str(value).replace(",", " ").split()
    compose_http = split(env.get("TSSERVE_UPSTREAMS_HTTP", ""))
    compose_grpc = split(env.get("TSSERVE_UPSTREAMS_GRPC", ""))
    wanted_http = ["%s:%s" % (n, p["http"]) for n, p in ports.items()]
    wanted_grpc = ["%s:%s" % (n, p["grpc"]) for n, p in ports.items()]
    if sorted(compose_http) != sorted(wanted_http):
        failures.append("compose: nginx's TSSERVE_UPSTREAMS_HTTP is %s; the replicas serve HTTP on %s"
                        % (compose_http, sorted(wanted_http)))
    if sorted(compose_grpc) != sorted(wanted_grpc):
        failures.append("compose: nginx's TSSERVE_UPSTREAMS_GRPC is %s; the replicas serve gRPC on %s"
                        % (compose_grpc, sorted(wanted_grpc)))
    loopback = lambda addresses: [re.sub(r"^[^:]+:", "127.0.0.1:", a) for a in addresses]
    as_compose = dict(env)
    as_compose["TSSERVE_UPSTREAMS_HTTP"] = " ".join(loopback(compose_http))
    as_compose["TSSERVE_UPSTREAMS_GRPC"] = " ".join(loopback(compose_grpc))
    path, error = render(as_compose, work, "compose")
    if error:
        failures.append("compose's nginx: " + error)
    else:
        failures += check_rendered(path, loopback(wanted_http), loopback(wanted_grpc), "compose's nginx")
    # 2. As the scale-out tests render it: loopback ports, HTTP and gRPC.
    http = ["127.0.0.1:%d" % p for p in (18001, 18002, 18003)]
    grpc = ["127.0.0.1:%d" % p for p in (18051, 18052, 18053)]
    path, error = render({"TSSERVE_UPSTREAMS_HTTP": ",".join(http), "TSSERVE_UPSTREAMS_GRPC": " ".join(grpc),
                          "TSSERVE_NGINX_HTTP_LISTEN": "127.0.0.1:18000",
                          "TSSERVE_NGINX_GRPC_LISTEN": "127.0.0.1:18050"}, work, "loopback")
    if error:
        failures.append("loopback: " + error)
    else:
        failures += check_rendered(path, http, grpc, "loopback")
    # 3. HTTP only (no gRPC upstreams: the gRPC server block is dropped).
    path, error = render({"TSSERVE_UPSTREAMS_HTTP": " ".join(http),
                          "TSSERVE_NGINX_HTTP_LISTEN": "127.0.0.1:18000"}, work, "http-only")
    if error:
        failures.append("http-only: " + error)
    else:
        failures += check_rendered(path, http, None, "http-only")
    return failures


def check_haproxy(work):
    """deploy/haproxy/ (optional beside nginx): rendered with loopback ports, with and
    without gRPC, `haproxy -c` accepts it, and its backends are those ports, round robin,
    HTTP retried on conn-failure and 503, gRPC servers over h2."""
    failures = []
    if not os.access(HAPROXY, os.X_OK):
        print("haproxy is not installed: deploy/haproxy not checked")
        return failures
    http = ["127.0.0.1:%d" % p for p in (18001, 18002, 18003)]
    grpc = ["127.0.0.1:%d" % p for p in (18051, 18052, 18053)]
    for name, env, want_grpc in (
            ("haproxy", {"TSSERVE_UPSTREAMS_HTTP": " ".join(http), "TSSERVE_UPSTREAMS_GRPC": ",".join(grpc),
                         "TSSERVE_NGINX_HTTP_LISTEN": "127.0.0.1:18000",
                         "TSSERVE_NGINX_GRPC_LISTEN": "127.0.0.1:18050"}, grpc),
            ("haproxy-http-only", {"TSSERVE_UPSTREAMS_HTTP": " ".join(http),
                                   "TSSERVE_NGINX_HTTP_LISTEN": "127.0.0.1:18000"}, None)):
        path, error = render(env, work, name, balancer="haproxy")
        if error:
            failures.append("%s: %s" % (name, error))
            continue
        done = subprocess.run([HAPROXY, "-c", "-q", "-f", path], capture_output=True, text=True)
        if done.returncode != 0:
            failures.append("%s: haproxy -c refused the rendered config: %s"
                            % (name, (done.stdout + done.stderr).strip()[-800:]))
        with open(path) as f:
            text = directives(f.read())
        if "${" in text:
            failures.append("%s: placeholders left unrendered" % name)
        sections = dict(re.findall(r"^backend\s+(\S+)\n((?:[ \t]+.*\n?|\n)*)", text, re.M))
        for backend, wanted in (("tsserve_http", http), ("tsserve_grpc", want_grpc)):
            body = sections.get(backend)
            if wanted is None:
                if body is not None:
                    failures.append("%s: backend %s rendered without gRPC upstreams" % (name, backend))
                continue
            if body is None:
                failures.append("%s: no backend %s" % (name, backend))
                continue
            servers = re.findall(r"^\s*server\s+\S+\s+(\S+)(.*)$", body, re.M)
            if sorted(a for a, _ in servers) != sorted(wanted):
                failures.append("%s: backend %s has %s; expected %s" % (name, backend, sorted(a for a, _ in servers), sorted(wanted)))
            if not re.search(r"^\s*balance\s+roundrobin\b", body, re.M):
                failures.append("%s: backend %s is not balance roundrobin" % (name, backend))
            retry = set((re.search(r"^\s*retry-on\s+(.*)$", body, re.M) or re.match("()", "")).group(1).split())
            need = {"conn-failure", "503"} if backend == "tsserve_http" else {"conn-failure"}
            if not need <= retry:
                failures.append("%s: backend %s retry-on %s; needs %s" % (name, backend, sorted(retry), sorted(need)))
            if backend == "tsserve_grpc" and not all("proto h2" in extra for _, extra in servers):
                failures.append("%s: gRPC servers need proto h2" % name)
    return failures


def load():
    with open(os.path.join(DEPLOY, "compose.yaml")) as f:
        compose = yaml.safe_load(f)
    with open(os.path.join(DEPLOY, "prometheus", "prometheus.yml")) as f:
        prometheus = yaml.safe_load(f)
    return compose, prometheus


def run_checks(compose, prometheus, work):
    replicas, failures = check_compose(compose, prometheus)
    return failures + check_nginx(compose, replicas, work) + check_haproxy(work)


def planted(work):
    """Each plant, made in a copy of compose or of the template, must be reported."""
    compose, prometheus = load()
    first = sorted(n for n in compose["services"] if n.startswith("tsserve"))[0]

    def wrong_port(c, p):
        env = c["services"]["nginx"]["environment"]
        env["TSSERVE_UPSTREAMS_HTTP"] = env["TSSERVE_UPSTREAMS_HTTP"].replace(":8000", ":8001", 1)

    def no_store(c, p):
        c["services"][first]["environment"].pop("TSSERVE_SERIES_STORE")

    def no_aof(c, p):
        c["services"]["redis"]["command"] = ["redis-server", "--appendfsync", "everysec"]

    def unscraped(c, p):
        p["scrape_configs"][0]["static_configs"][0]["targets"].pop()

    plants = {"nginx upstream on a wrong HTTP port": (wrong_port, None),
              "a replica without TSSERVE_SERIES_STORE": (no_store, None),
              "redis without appendonly": (no_aof, None),
              "a replica Prometheus does not scrape": (unscraped, None),
              "no retry on 503": (None, lambda t: t.replace("error timeout http_503 non_idempotent",
                                                               "error timeout")),
              "a template nginx refuses": (None, lambda t: t.replace("grpc_pass grpc://tsserve_grpc;",
                                                                     "grpc_pass grpc://tsserve_grpc"))}
    haproxy_plants = {"haproxy without a retry on 503": lambda t: t.replace(
        "retry-on conn-failure empty-response 503", "retry-on conn-failure empty-response")}
    haproxy_template = os.path.join(DEPLOY, "haproxy", "tsserve.cfg.template")
    template = os.path.join(DEPLOY, "nginx", "tsserve.conf.template")
    missed = []
    for what, (compose_plant, template_plant) in plants.items():
        c, p = copy.deepcopy(compose), copy.deepcopy(prometheus)
        saved = os.environ.get("TSSERVE_NGINX_TEMPLATE")
        if compose_plant:
            compose_plant(c, p)
        if template_plant:
            with open(template) as f:
                text = f.read()
            planted_text = template_plant(text)
            if planted_text == text:
                missed.append("%s: the plant did not apply (the template changed?)" % what)
                continue
            os.makedirs(work, exist_ok=True)
            copy_path = os.path.join(work, "planted.conf.template")
            with open(copy_path, "w") as f:
                f.write(planted_text)
            os.environ["TSSERVE_NGINX_TEMPLATE"] = copy_path
        try:
            failures = run_checks(c, p, os.path.join(work, "plant"))
        finally:
            if saved is None:
                os.environ.pop("TSSERVE_NGINX_TEMPLATE", None)
            else:
                os.environ["TSSERVE_NGINX_TEMPLATE"] = saved
        if failures:
            print("plant '%s' caught: %s" % (what, failures[0]))
        else:
            missed.append(what)
    if os.access(HAPROXY, os.X_OK):
        for what, template_plant in haproxy_plants.items():
            with open(haproxy_template) as f:
                text = f.read()
            if template_plant(text) == text:
                missed.append("%s: the plant did not apply (the template changed?)" % what)
                continue
            copy_path = os.path.join(work, "planted.cfg.template")
            with open(copy_path, "w") as f:
                f.write(template_plant(text))
            os.environ["TSSERVE_HAPROXY_TEMPLATE"] = copy_path
            try:
                failures = check_haproxy(os.path.join(work, "plant"))
            finally:
                os.environ.pop("TSSERVE_HAPROXY_TEMPLATE", None)
            if failures:
                print("plant '%s' caught: %s" % (what, failures[0]))
            else:
                missed.append(what)
            plants[what] = None
    for what in missed:
        print("FAIL: plant not caught:", what)
    if missed:
        sys.exit(1)
    print("PASS: every planted defect was caught (%d)" % len(plants))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", required=True)
    parser.add_argument("--plant", action="store_true")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    if not os.access(NGINX, os.X_OK):
        print("SKIPPED: nginx is not installed (deploy/install-deps.sh installs it)")
        sys.exit(77)
    if args.plant:
        planted(work)
        return
    compose, prometheus = load()
    failures = run_checks(compose, prometheus, work)
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        sys.exit(1)
    print("PASS: compose (replicas, redis with AOF, nginx, Prometheus) and deploy/nginx "
          "(rendered 3 ways, nginx -t, upstreams and retries) and deploy/haproxy (haproxy -c)")


if __name__ == "__main__":
    main()
