#!/usr/bin/env python3
"""Real servers for the remote-index tests: nginx (HTTP range requests) and an S3-compatible
server (moto in server mode), with a chosen round-trip time and bandwidth between them and the
client.

    servers.py start --dir DIR --state STATE [--rtt-ms N] [--mbit M] [--no-upload]  # prints JSON
    servers.py rtt   --state STATE --rtt-ms N               # change the round-trip time
    servers.py rate  --state STATE --mbit M                 # change the bandwidth (0: unlimited)
    servers.py sync  --state STATE                          # re-upload DIR to the bucket
    servers.py balance --state STATE --upstream HOST:PORT ...  # nginx balancing them; prints JSON
    servers.py stop  --state STATE                          # stop everything, remove the network

`start` serves every file under DIR at `http://HOST:PORT/<relative path>` (nginx: byte
ranges, multi-range requests, ETags) and as `s3://bitsift/<relative path>` (moto), plus
`/max-ranges-1/…` (the same files, one range a request: nginx answers more with the whole file),
`/status/403/…`, `/status/404/…` and `/status/500/…` answering that status for any path, and a
"blackhole" port that accepts connections and never answers (for timeouts). The JSON has
`http`, `s3_endpoint`, `bucket`, `region`, `access_key`, `secret_key`, `blackhole`,
`netns` (servers in a private network namespace), `latency` (`netem`, `proxy` or `none`),
`rtt_ms`, `mbit` (the bandwidth in Mbit/s each way, 0 when not limited) and `access_log` (nginx's
log, one line per request, for counting requests). `sync` uploads every file again, each
collection's manifest (`collection.json`) last, and deletes nothing.

`balance` starts a second nginx, on 127.0.0.1 beside the client (not in the namespace), as a
load balancer in front of the `bitsift serve` replicas given (`BALANCER_CONF`: the
configuration `docs/scale-out.md` explains), and prints `{"url": ..., "access_log": ...}`;
every answer through it names the replica that gave it (`X-Bitsift-Replica`).

As root the servers run in a private network namespace reached through a veth pair, and the
round-trip time is injected with `tc netem` on both ends. Where the kernel has no netem (some
VM kernels ship without `sch_netem` and without modules), or without root, a delaying TCP
proxy in front of each server injects it instead (`crates/netdelay`, built with cargo when
needed; a slower Python one where there is no cargo): every byte waits half the round trip in each
direction, and a new connection waits one more round trip before its first byte (the TCP
handshake it would cost). A bandwidth (`--mbit`, default 0: not limited) is a link of that rate
in each direction shared by all the connections to a server, as the parallel requests of a query
share a real link: `netem rate`, or the proxy's `--rate-file` (one link per proxy, so per server).
Without root the servers listen on 127.0.0.1 and nginx must already be installed; as root nginx
is installed with apt-get when missing. moto comes from PyPI into a virtual environment
(`BITSIFT_REMOTE_VENV`, default `target/remote-venv` in the repository).

Standard library only, so that it runs with any python3 >= 3.9.
"""

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MOTO_REQUIREMENTS = ["moto[server]==5.2.5", "boto3==1.44.8"]
BUCKET = "bitsift"
REGION = "us-east-1"
ACCESS_KEY = "bitsift-test"
SECRET_KEY = "bitsift-test-secret"
HTTP_PORT, S3_PORT, BLACKHOLE_PORT = 8080, 5000, 8089


def say(message):
    print("servers.py: %s" % message, file=sys.stderr, flush=True)


def run(*command, check=True, **kwargs):
    return subprocess.run(list(command), check=check, **kwargs)


def is_root():
    return os.geteuid() == 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def netns_names(state):
    """A namespace, interfaces and subnet derived from the state directory, so that two runs
    with different state directories do not collide."""
    digest = hashlib.sha256(os.path.abspath(state).encode()).hexdigest()
    subnet = 16 + int(digest[:4], 16) % 200
    return {
        "ns": "bsr" + digest[:8],
        "host_if": "bsr%sa" % digest[:6],
        "ns_if": "bsr%sb" % digest[:6],
        "host_ip": "10.231.%d.1" % subnet,
        "ns_ip": "10.231.%d.2" % subnet,
    }


# ---------------------------------------------------------------- installation


def ensure_nginx():
    path = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if path:
        return path
    if not is_root() or not shutil.which("apt-get"):
        raise SystemExit("servers.py: nginx is not installed: run 'sudo apt-get install nginx' or run as root")
    say("installing nginx (apt-get)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if run("apt-get", "install", "-y", "-q", "nginx", check=False, env=env).returncode != 0:
        run("apt-get", "update", "-q", env=env)
        run("apt-get", "install", "-y", "-q", "nginx", env=env)
    return "/usr/sbin/nginx"


def ensure_moto():
    venv = os.environ.get("BITSIFT_REMOTE_VENV") or os.path.join(ROOT, "target", "remote-venv")
    python = os.path.join(venv, "bin", "python")
    probe = "import moto, boto3, sys; sys.exit(moto.__version__ != '%s')" % MOTO_REQUIREMENTS[0].split("==")[1]
    if os.path.exists(python) and run(python, "-c", probe, check=False, capture_output=True).returncode == 0:
        return venv
    say("installing %s into %s" % (" ".join(MOTO_REQUIREMENTS), venv))
    if not os.path.exists(python):
        run(sys.executable, "-m", "venv", venv)
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *MOTO_REQUIREMENTS)
    return venv


# ---------------------------------------------------------------- network


def has_netem():
    """Whether the kernel accepts a netem qdisc (tried on a throwaway dummy device's sibling:
    a veth pair in a scratch namespace)."""
    ns = "bsrprobe%d" % os.getpid()
    try:
        run("ip", "netns", "add", ns, capture_output=True)
        run("ip", "-n", ns, "link", "set", "lo", "up", capture_output=True)
        result = run("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root",
                     "netem", "delay", "1ms", check=False, capture_output=True)
        return result.returncode == 0
    except (OSError, subprocess.CalledProcessError):
        return False
    finally:
        run("ip", "netns", "del", ns, check=False, capture_output=True)


def make_netns(names):
    ns, host_if, ns_if = names["ns"], names["host_if"], names["ns_if"]
    run("ip", "netns", "del", ns, check=False, capture_output=True)
    run("ip", "link", "del", host_if, check=False, capture_output=True)
    run("ip", "netns", "add", ns)
    run("ip", "link", "add", host_if, "type", "veth", "peer", "name", ns_if)
    run("ip", "link", "set", ns_if, "netns", ns)
    run("ip", "addr", "add", names["host_ip"] + "/24", "dev", host_if)
    run("ip", "link", "set", host_if, "up")
    run("ip", "-n", ns, "addr", "add", names["ns_ip"] + "/24", "dev", ns_if)
    run("ip", "-n", ns, "link", "set", ns_if, "up")
    run("ip", "-n", ns, "link", "set", "lo", "up")


def set_netem(names, rtt_ms, mbit, verb):
    """Half the round trip each way, and a rate limit each way when `mbit` is not 0. (`change`
    keeps a rate it is not given: `replace` clears one.)"""
    netem = ["netem", "delay", "%.3fms" % (rtt_ms / 2.0), "limit", "100000"]
    if mbit:
        netem += ["rate", "%gmbit" % mbit]
    run("tc", "qdisc", verb, "dev", names["host_if"], "root", *netem)
    run("ip", "netns", "exec", names["ns"], "tc", "qdisc", verb, "dev", names["ns_if"], "root", *netem)


# ---------------------------------------------------------------- processes


def spawn(state, name, command, netns=None):
    """Starts a daemon process, its output in STATE/NAME.log, its pid in STATE/NAME.pid."""
    if netns:
        command = ["ip", "netns", "exec", netns] + command
    log = open(os.path.join(state, name + ".log"), "ab")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               start_new_session=True)
    with open(os.path.join(state, name + ".pid"), "w") as f:
        f.write("%d\n" % process.pid)
    return process


def wait_http(url, what, timeout=60.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except urllib.error.HTTPError:
            return  # it answered
        except (urllib.error.URLError, OSError) as error:
            if time.monotonic() > deadline:
                raise SystemExit("servers.py: %s did not start at %s: %s" % (what, url, error))
            time.sleep(0.2)


NGINX_CONF = """
daemon off;
worker_processes 1;
pid {state}/nginx.pid.nginx;
error_log {state}/nginx-error.log warn;
{user}
events {{ worker_connections 4096; }}
http {{
    access_log {state}/nginx-access.log;
    client_body_temp_path {state}/nginx-tmp/body;
    proxy_temp_path {state}/nginx-tmp/proxy;
    fastcgi_temp_path {state}/nginx-tmp/fastcgi;
    uwsgi_temp_path {state}/nginx-tmp/uwsgi;
    scgi_temp_path {state}/nginx-tmp/scgi;
    sendfile on;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    types {{ }}
    default_type application/octet-stream;
    server {{
        listen {host}:{port};
        root {root};
        etag on;
        location / {{ }}
        location /max-ranges-1/ {{ alias {root}/; max_ranges 1; }}
        location /status/403/ {{ return 403; }}
        location /status/404/ {{ return 404; }}
        location /status/500/ {{ return 500; }}
    }}
}}
"""


def start_nginx(state, root, host, port, netns):
    nginx = ensure_nginx()
    os.makedirs(os.path.join(state, "nginx-tmp"), exist_ok=True)
    conf = os.path.join(state, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(state=state, root=root, host=host, port=port,
                                  user="user root;" if is_root() else ""))
    spawn(state, "nginx", [nginx, "-c", conf, "-e", os.path.join(state, "nginx-error.log")], netns)


# nginx as the load balancer in front of `bitsift serve` replicas; docs/scale-out.md shows
# its `http` block as the recipe.
BALANCER_CONF = """
daemon off;
worker_processes 1;
pid {state}/balancer.pid.nginx;
error_log {state}/balancer-error.log warn;
{user}
events {{ worker_connections 4096; }}
http {{
    access_log {state}/balancer-access.log;
    client_body_temp_path {state}/balancer-tmp/body;
    proxy_temp_path {state}/balancer-tmp/proxy;
    fastcgi_temp_path {state}/balancer-tmp/fastcgi;
    uwsgi_temp_path {state}/balancer-tmp/uwsgi;
    scgi_temp_path {state}/balancer-tmp/scgi;
    # Who a request comes from, for each replica's per-client limits: the client's own
    # X-Api-Key, else its address (every request would otherwise come from this proxy's).
    map $http_x_api_key $bitsift_client {{
        ""      "address $remote_addr";
        default $http_x_api_key;
    }}
    upstream bitsift {{
        least_conn;
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 64m;
        location / {{
            proxy_pass http://bitsift;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header X-Api-Key $bitsift_client;
            proxy_buffering off;
            proxy_read_timeout 120s;
            proxy_next_upstream error timeout non_idempotent;
            add_header X-Bitsift-Replica $upstream_addr always;
        }}
        # Each replica takes a reload from its own machine only, and the proxy is on it.
        location = /api/reload {{ return 403; }}
    }}
}}
"""


def command_balance(args):
    info = load(args.state)
    state = info["state"]
    port = free_port()
    os.makedirs(os.path.join(state, "balancer-tmp"), exist_ok=True)
    servers = "\n".join("        server %s max_fails=3 fail_timeout=5s;" % upstream
                         for upstream in args.upstream)
    conf = os.path.join(state, "balancer.conf")
    with open(conf, "w") as f:
        f.write(BALANCER_CONF.format(state=state, port=port, servers=servers,
                                     user="user root;" if is_root() else ""))
    spawn(state, "balancer", [ensure_nginx(), "-c", conf, "-e", os.path.join(state, "balancer-error.log")])
    url = "http://127.0.0.1:%d" % port
    wait_http(url + "/healthz", "the balancing nginx")
    print(json.dumps({"url": url, "access_log": os.path.join(state, "balancer-access.log")}), flush=True)


def start_moto(state, venv, host, port, netns):
    moto = os.path.join(venv, "bin", "moto_server")
    spawn(state, "moto", [moto, "-H", host, "-p", str(port)], netns)


def start_blackhole(state, host, port, netns):
    spawn(state, "blackhole", [sys.executable, os.path.abspath(__file__), "blackhole",
                               "--host", host, "--port", str(port)], netns)


def limits_rate(netdelay):
    """Whether a build of the proxy knows `--rate-file` (one built before it does not)."""
    probe = run(netdelay, "--rate-file", os.devnull, check=False, capture_output=True, text=True)
    return "unknown option" not in probe.stderr


def find_netdelay():
    """The compiled delaying proxy (crates/netdelay): $BITSIFT_NETDELAY, else the workspace's
    build of it (unless it predates `--rate-file`), else built now with cargo; None where there
    is no cargo (then the Python proxy below is used: the same delays and rate, but it caps the
    request rate near 2,000/s)."""
    named = os.environ.get("BITSIFT_NETDELAY")
    if named:
        return named
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    for profile in ("release", "debug"):
        path = os.path.join(target, profile, "bitsift-netdelay")
        if os.access(path, os.X_OK) and limits_rate(path):
            return path
    if shutil.which("cargo"):
        say("building the delaying proxy: cargo build --release -p bitsift-netdelay")
        built = run("cargo", "build", "--release", "--quiet", "-p", "bitsift-netdelay", cwd=ROOT, check=False)
        path = os.path.join(target, "release", "bitsift-netdelay")
        if built.returncode == 0 and os.access(path, os.X_OK):
            return path
    return None


def start_proxy(state, name, listen_port, target_host, target_port):
    listen, target = "127.0.0.1:%d" % listen_port, "%s:%d" % (target_host, target_port)
    netdelay = find_netdelay()
    if netdelay:
        spawn(state, name, [netdelay, "--listen", listen, "--target", target,
                            "--rtt-file", os.path.join(state, "rtt_ms"),
                            "--rate-file", os.path.join(state, "rate_bps")])
        return "netdelay"
    spawn(state, name, [sys.executable, os.path.abspath(__file__), "proxy", "--state", state,
                        "--listen", listen, "--target", target])
    return "python"


# ---------------------------------------------------------------- S3 upload


UPLOAD = r"""
import os, sys, boto3
endpoint, bucket, root = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
                  aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"])
try:
    s3.create_bucket(Bucket=bucket)
except s3.exceptions.BucketAlreadyOwnedByYou:
    pass
s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
# Every collection's manifest last: it is the commit point, and a server following the
# collection must never find it naming a file not uploaded yet. Nothing is deleted: the files
# a merge replaced stay for the servers still searching them.
paths = sorted((os.path.join(d, n) for d, _, files in os.walk(root) for n in files),
               key=lambda path: (os.path.basename(path) == "collection.json", path))
for path in paths:
    s3.upload_file(path, bucket, os.path.relpath(path, root).replace(os.sep, "/"),
                   ExtraArgs={"ACL": "public-read"})
print(len(paths))
"""


def upload(info):
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY)
    python = os.path.join(info["venv"], "bin", "python")
    # Straight to the server, not through the delaying proxy.
    out = run(python, "-c", UPLOAD, info["s3_direct"], BUCKET, info["dir"], env=env,
              capture_output=True, text=True)
    return int(out.stdout.strip() or 0)


# ---------------------------------------------------------------- commands


def command_start(args):
    state = os.path.abspath(args.state)
    root = os.path.abspath(args.dir)
    if args.mbit < 0:
        raise SystemExit("servers.py: --mbit must be 0 (not limited) or more")
    if not os.path.isdir(root):
        raise SystemExit("servers.py: %s is not a directory" % root)
    os.makedirs(state, exist_ok=True)
    venv = ensure_moto()
    info = {"dir": root, "state": state, "venv": venv, "bucket": BUCKET, "region": REGION,
            "access_key": ACCESS_KEY, "secret_key": SECRET_KEY, "rtt_ms": args.rtt_ms,
            "mbit": args.mbit, "access_log": os.path.join(state, "nginx-access.log")}
    save(state, info)  # so that stop cleans up whatever did start
    if is_root():
        names = netns_names(state)
        make_netns(names)
        info.update(netns=True, names=names)
        save(state, info)
        host, ns = names["ns_ip"], names["ns"]
        ports = (HTTP_PORT, S3_PORT, BLACKHOLE_PORT)
    else:
        info["netns"] = False
        host, ns = "127.0.0.1", None
        ports = (free_port(), free_port(), free_port())
    start_nginx(state, root, host, ports[0], ns)
    start_moto(state, venv, host, ports[1], ns)
    start_blackhole(state, host, ports[2], ns)
    direct_http = "http://%s:%d" % (host, ports[0])
    info.update(s3_direct="http://%s:%d" % (host, ports[1]), blackhole="http://%s:%d" % (host, ports[2]))
    wait_http(direct_http + "/", "nginx")
    wait_http(info["s3_direct"] + "/", "moto")
    choose_latency(info, direct_http, host, ports)
    save(state, info)
    info["uploaded"] = 0 if args.no_upload else upload(info)
    wait_http(info["http"] + "/", "the delaying proxy")
    save(state, info)
    print(json.dumps(public(info)), flush=True)


def choose_latency(info, direct_http, host, ports):
    """netem on the veth pair when the kernel has it; otherwise a delaying proxy per server."""
    state = info["state"]
    write_atomically(os.path.join(state, "rtt_ms"), "%g\n" % info["rtt_ms"])
    write_atomically(os.path.join(state, "rate_bps"), "%d\n" % round(info["mbit"] * 1e6))
    if info["netns"] and has_netem():
        set_netem(info["names"], info["rtt_ms"], info["mbit"], "add")
        info.update(latency="netem", http=direct_http, s3_endpoint=info["s3_direct"])
        return
    http_port, s3_port = free_port(), free_port()
    kind = start_proxy(state, "proxy-http", http_port, host, ports[0])
    start_proxy(state, "proxy-s3", s3_port, host, ports[1])
    info.update(latency="proxy", proxy=kind,
                http="http://127.0.0.1:%d" % http_port, s3_endpoint="http://127.0.0.1:%d" % s3_port)


def public(info):
    keys = ("http", "s3_endpoint", "bucket", "region", "access_key", "secret_key", "blackhole",
            "netns", "latency", "proxy", "rtt_ms", "mbit", "access_log", "uploaded")
    return {key: info.get(key) for key in keys}


def save(state, info):
    tmp = os.path.join(state, "info.json.tmp")
    with open(tmp, "w") as f:
        json.dump(info, f, indent=1)
    os.replace(tmp, os.path.join(state, "info.json"))


def load(state):
    with open(os.path.join(os.path.abspath(state), "info.json")) as f:
        return json.load(f)


def write_atomically(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def command_rtt(args):
    info = load(args.state)
    write_atomically(os.path.join(info["state"], "rtt_ms"), "%g\n" % args.rtt_ms)
    if info.get("latency") == "netem":
        set_netem(info["names"], args.rtt_ms, info.get("mbit", 0), "change")
    else:
        time.sleep(0.3)  # the proxies look at the file every 0.1 s
    info["rtt_ms"] = args.rtt_ms
    save(info["state"], info)
    print(json.dumps(public(info)), flush=True)


def command_rate(args):
    if args.mbit < 0:
        raise SystemExit("servers.py: --mbit must be 0 (not limited) or more")
    info = load(args.state)
    write_atomically(os.path.join(info["state"], "rate_bps"), "%d\n" % round(args.mbit * 1e6))
    if info.get("latency") == "netem":
        verb = "replace" if info.get("mbit") and not args.mbit else "change"
        set_netem(info["names"], info["rtt_ms"], args.mbit, verb)
    else:
        time.sleep(0.3)  # the proxies look at the file every 0.1 s
    info["mbit"] = args.mbit
    save(info["state"], info)
    print(json.dumps(public(info)), flush=True)


def command_sync(args):
    info = load(args.state)
    print(upload(info), flush=True)


def command_stop(args):
    state = os.path.abspath(args.state)
    for name in ("balancer", "proxy-http", "proxy-s3", "blackhole", "moto", "nginx"):
        pid_file = os.path.join(state, name + ".pid")
        try:
            with open(pid_file) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            continue
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(50):
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os.unlink(pid_file)
    try:
        info = load(state)
    except OSError:
        return
    if info.get("netns") and info.get("names"):
        run("ip", "netns", "del", info["names"]["ns"], check=False, capture_output=True)
        run("ip", "link", "del", info["names"]["host_if"], check=False, capture_output=True)


# ---------------------------------------------------------------- helper daemons


def command_blackhole(args):
    """Accepts connections and never answers: a server that hangs."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    listener.listen(1024)
    held = []
    while True:
        connection, _ = listener.accept()
        held.append(connection)


class Delay:
    """The one-way delay and the rate, re-read from STATE/rtt_ms and STATE/rate_bps every 0.1 s
    (so `rtt` and `rate` change them live)."""

    def __init__(self, state):
        self.paths = os.path.join(state, "rtt_ms"), os.path.join(state, "rate_bps")
        self.seconds = 0.0
        self.rate_bps = 0.0

    async def follow(self):
        while True:
            try:
                with open(self.paths[0]) as f:
                    self.seconds = float(f.read().strip()) / 2000.0
            except (OSError, ValueError):
                pass
            try:
                with open(self.paths[1]) as f:
                    self.rate_bps = max(0.0, float(f.read().strip()))
            except (OSError, ValueError):
                pass
            await asyncio.sleep(0.1)


class Link:
    """One direction of the link, shared by every connection (as crates/netdelay's): a chunk
    leaves when it and the link are ready, `bytes * 8 / rate` later."""

    def __init__(self):
        self.free_at = 0.0

    def transmit(self, ready, size, rate_bps):
        if not rate_bps:
            return ready
        self.free_at = max(self.free_at, ready) + size * 8.0 / rate_bps
        return self.free_at


async def forward(reader, writer, delay, link, first_extra):
    """Copies reader to writer, every chunk released one delay after it left the link."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def receive():
        extra = first_extra
        while True:
            data = await reader.read(1 << 18)
            ready = loop.time() + extra
            extra = 0.0
            if not data:
                await queue.put((ready + delay.seconds, data))
                return
            rate = delay.rate_bps
            piece = 1 << 14 if rate else len(data)
            for start in range(0, len(data), piece):
                part = data[start:start + piece]
                await queue.put((link.transmit(ready, len(part), rate) + delay.seconds, part))

    receiver = asyncio.ensure_future(receive())
    try:
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        receiver.cancel()


async def proxy_main(args):
    delay = Delay(args.state)
    up, down = Link(), Link()
    asyncio.ensure_future(delay.follow())
    target_host, target_port = args.target.rsplit(":", 1)
    listen_host, listen_port = args.listen.rsplit(":", 1)

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, int(target_port))
        except OSError:
            client_writer.close()
            return
        # The first request waits one more round trip: the handshake a real link would cost.
        requests = forward(client_reader, server_writer, delay, up, first_extra=2 * delay.seconds)
        answers = forward(server_reader, client_writer, delay, down, first_extra=0.0)
        await asyncio.gather(requests, answers, return_exceptions=True)
        for writer in (client_writer, server_writer):
            writer.close()

    server = await asyncio.start_server(handle, listen_host, int(listen_port), backlog=4096)
    async with server:
        await server.serve_forever()


def command_proxy(args):
    asyncio.run(proxy_main(args))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start")
    start.add_argument("--dir", required=True)
    start.add_argument("--state", required=True)
    start.add_argument("--rtt-ms", type=float, default=0.0)
    start.add_argument("--mbit", type=float, default=0.0,
                       help="bandwidth each way in Mbit/s, shared by all connections (0: not limited)")
    start.add_argument("--no-upload", action="store_true",
                       help="do not upload DIR to the S3 server (HTTP-only runs; `sync` uploads it)")
    rtt = sub.add_parser("rtt")
    rtt.add_argument("--state", required=True)
    rtt.add_argument("--rtt-ms", type=float, required=True)
    rate = sub.add_parser("rate")
    rate.add_argument("--state", required=True)
    rate.add_argument("--mbit", type=float, required=True, help="Mbit/s each way (0: not limited)")
    for name in ("sync", "stop"):
        sub.add_parser(name).add_argument("--state", required=True)
    balance = sub.add_parser("balance")
    balance.add_argument("--state", required=True)
    balance.add_argument("--upstream", action="append", required=True, help="HOST:PORT of a replica")
    blackhole = sub.add_parser("blackhole")
    blackhole.add_argument("--host", required=True)
    blackhole.add_argument("--port", type=int, required=True)
    proxy = sub.add_parser("proxy")
    proxy.add_argument("--state", required=True)
    proxy.add_argument("--listen", required=True)
    proxy.add_argument("--target", required=True)
    args = parser.parse_args()
    commands = {"start": command_start, "rtt": command_rtt, "rate": command_rate, "sync": command_sync, "stop": command_stop, "balance": command_balance,
                "blackhole": command_blackhole, "proxy": command_proxy}
    commands[args.command](args)


if __name__ == "__main__":
    main()
