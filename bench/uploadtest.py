#!/usr/bin/env python3
"""Hostile uploads against `bitsift serve`: what do N concurrent large bodies cost?

Starts the server on INDEX, then N clients at once each send one POST /api/search whose body
is a JSON sequence of SIZE bytes (issue 12: 16 concurrent 250 MB uploads took 4.75 GB RSS).
Reports the status each client got, the server's peak resident memory (VmHWM) and the
largest sampled VmRSS, and the RSS still held 2 s after the last answer.

Usage: bench/uploadtest.py INDEX [--uploads 16] [--size 250M] [--bitsift PATH] [--json OUT]
       [-- SERVER OPTIONS...]

Standard library only.
"""
import argparse
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_size(text):
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", text.strip().upper())
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 250M")
    return int(float(match.group(1)) * 1000 ** "_KMGT".index(match.group(2) or "_"))


def memory_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def upload(port, body, results):
    """Sends one upload; records (status, seconds). A server that refuses early closes the
    connection while the body is still being sent: the answer is read all the same."""
    started = time.monotonic()
    status = 0
    try:
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.settimeout(300)
            s.sendall(b"POST /api/search HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
            try:
                s.sendall(body)
            except OSError:
                pass
            reply = b""
            try:
                while b"\r\n" not in reply:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    reply += chunk
            except OSError:
                pass
            if reply.startswith(b"HTTP/1.1 "):
                status = int(reply.split()[1])
    except OSError:
        pass
    results.append((status, time.monotonic() - started))


def main():
    if "--" in sys.argv:
        split = sys.argv.index("--")
        argv, server_options = sys.argv[1:split], sys.argv[split + 1:]
    else:
        argv, server_options = sys.argv[1:], []
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("index")
    parser.add_argument("--uploads", type=int, default=16)
    parser.add_argument("--size", type=parse_size, default=parse_size("250M"))
    parser.add_argument("--json")
    parser.add_argument("--bitsift", default=os.environ.get("BITSIFT", os.path.join(
        os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release/bitsift")))
    args = parser.parse_args(argv)
    prefix, suffix = b'{"sequence": "', b'"}'
    body = prefix + b"ACGT" * ((args.size - len(prefix) - len(suffix)) // 4) + suffix
    server = subprocess.Popen(
        [args.bitsift, "serve", "-i", args.index, "--listen", "127.0.0.1:0", *server_options],
        stderr=subprocess.PIPE, text=True)
    port = None
    for line in server.stderr:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            port = int(found.group(1))
            break
    if port is None:
        sys.exit(f"uploadtest: server did not start: {server.stderr.read()}")
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
    idle_rss = memory_kib(server.pid, "VmRSS")
    samples, results, stop = [], [], threading.Event()

    def sample():
        while not stop.is_set():
            value = memory_kib(server.pid, "VmRSS")
            if value:
                samples.append(value)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    clients = [threading.Thread(target=upload, args=(port, body, results)) for _ in range(args.uploads)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    wall = time.monotonic() - started
    time.sleep(2)
    stop.set()
    sampler.join()
    report = {
        "uploads": args.uploads, "body_bytes": len(body), "server_options": server_options,
        "seconds": round(wall, 2),
        "statuses": {str(s): sum(1 for r in results if r[0] == s) for s in sorted({r[0] for r in results})},
        "idle_rss_mib": round((idle_rss or 0) / 1024),
        "peak_rss_mib": round((memory_kib(server.pid, "VmHWM") or 0) / 1024),
        "max_sampled_rss_mib": round(max(samples) / 1024) if samples else None,
        "held_rss_mib": round((memory_kib(server.pid, "VmRSS") or 0) / 1024),
    }
    server.terminate()
    server.wait(timeout=60)
    print(json.dumps(report))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
