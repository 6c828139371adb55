#!/usr/bin/env python3
"""webhook.py PORTFILE LOG — the receiving end of Alertmanager's webhook.

Listens on 127.0.0.1 on a port of the kernel's choosing, written to PORTFILE
once it listens (so two tests never fight over a port), and appends every
POSTed notification to LOG as one JSON line: {"received": UNIX time of
arrival, "notification": the body Alertmanager sent}.  alerts.sh reads LOG
to see which alerts arrived, when, with which labels and annotations, and
their resolution.  Runs until SIGTERM."""
import json
import os
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            notification = json.loads(body)
        except ValueError:
            self.send_error(400, "not JSON")
            return
        line = json.dumps({"received": time.time(), "notification": notification})
        with open(self.server.log, "a") as out:
            out.write(line + "\n")
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    portfile, log = sys.argv[1], sys.argv[2]
    server = HTTPServer(("127.0.0.1", 0), Handler)
    server.log = log
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    tmp = portfile + ".tmp"
    with open(tmp, "w") as out:
        out.write("%d\n" % server.server_address[1])
    os.replace(tmp, portfile)
    server.serve_forever()


if __name__ == "__main__":
    main()
