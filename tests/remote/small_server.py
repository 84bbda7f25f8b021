#!/usr/bin/env python3
"""A small threaded HTTP file server, as a new user would put an index behind: one thread per
connection, a listen queue of 5 connections (`--backlog`), HTTP/1.1 keep-alive, one byte
range a request (`Range: bytes=a-b`; a request for several gets the whole file and `200`, as
from many small servers; with `--multi-range` they come as `multipart/byteranges`), an ETag.
With `--no-ranges` it answers every GET with the whole file and `200`, as
`python3 -m http.server` does.

    small_server.py --dir DIR [--host 127.0.0.1] [--port 0] [--backlog 5] [--multi-range]
                    [--no-ranges]

Prints `http://HOST:PORT` on stdout once it listens, then serves until killed. Standard
library only.
"""

import argparse
import http.server
import os
import re
import socketserver
import sys

RANGE = re.compile(r"^\s*(\d*)\s*-\s*(\d*)\s*$")
BOUNDARY = "bitsiftsmallserver"


def parse_ranges(header, size):
    """The ranges of a `Range` header as (start, end) with `end` exclusive; None when the
    header is not one this server reads (then the whole file is sent), [] when none can be
    satisfied."""
    unit, _, specs = header.partition("=")
    if unit.strip().lower() != "bytes":
        return None
    ranges = []
    for spec in specs.split(","):
        match = RANGE.match(spec)
        if not match:
            return None
        first, last = match.groups()
        if first == "" and last == "":
            return None
        if first == "":
            start, end = max(0, size - int(last)), size
        else:
            start = int(first)
            end = size if last == "" else min(size, int(last) + 1)
        if start < end:
            ranges.append((start, end))
    return ranges


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    ranges = True
    multi_range = False
    root = "."

    def log_message(self, format, *args):
        pass

    def path_of(self):
        relative = self.path.split("?", 1)[0].lstrip("/")
        path = os.path.realpath(os.path.join(self.root, relative))
        if not path.startswith(os.path.realpath(self.root) + os.sep) or not os.path.isfile(path):
            return None
        return path

    def do_HEAD(self):
        self.answer(body=False)

    def do_GET(self):
        self.answer(body=True)

    def answer(self, body):
        path = self.path_of()
        if path is None:
            self.send_error(404)
            return
        stat = os.stat(path)
        size = stat.st_size
        etag = '"%x-%x"' % (int(stat.st_mtime), size)
        wanted = self.headers.get("Range") if self.ranges else None
        ranges = parse_ranges(wanted, size) if wanted else None
        with open(path, "rb") as f:
            if ranges is None or (len(ranges) > 1 and not self.multi_range):
                self.send_whole(f, size, etag, body)
            elif not ranges:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif len(ranges) == 1:
                self.send_one(f, ranges[0], size, etag, body)
            else:
                self.send_parts(f, ranges, size, etag, body)

    def send_whole(self, f, size, etag, body):
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("ETag", etag)
        if self.ranges:
            self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if body:
            try:
                while True:
                    chunk = f.read(1 << 20)
                    if not chunk:
                        break
                    self.wfile.write(chunk)
            except OSError:
                self.close_connection = True  # the client read the head and went

    def send_one(self, f, span, size, etag, body):
        start, end = span
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, size))
        self.send_header("Content-Length", str(end - start))
        self.send_header("ETag", etag)
        self.end_headers()
        if body:
            f.seek(start)
            self.wfile.write(f.read(end - start))

    def send_parts(self, f, ranges, size, etag, body):
        parts = []
        for start, end in ranges:
            f.seek(start)
            head = "--%s\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes %d-%d/%d\r\n\r\n" % (
                BOUNDARY, start, end - 1, size)
            parts.append(head.encode() + f.read(end - start) + b"\r\n")
        parts.append(("--%s--\r\n" % BOUNDARY).encode())
        payload = b"".join(parts)
        self.send_response(206)
        self.send_header("Content-Type", "multipart/byteranges; boundary=%s" % BOUNDARY)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("ETag", etag)
        self.end_headers()
        if body:
            self.wfile.write(payload)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--backlog", type=int, default=5, help="listen queue (connections)")
    parser.add_argument("--multi-range", action="store_true", help="answer several ranges as multipart/byteranges")
    parser.add_argument("--no-ranges", action="store_true", help="answer every GET with the whole file")
    args = parser.parse_args()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        request_queue_size = args.backlog

    Handler.root = os.path.abspath(args.dir)
    Handler.ranges = not args.no_ranges
    Handler.multi_range = args.multi_range
    server = Server((args.host, args.port), Handler)
    host, port = server.server_address[:2]
    print("http://%s:%d" % (host, port), flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
