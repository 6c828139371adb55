#!/usr/bin/env python3
"""notify_listen.py SOCKET LOG — stand in for systemd's end of sd_notify().

Binds an AF_UNIX datagram socket at SOCKET (what NOTIFY_SOCKET names) and
appends one line per datagram to LOG: the CLOCK_MONOTONIC time of arrival,
a tab, and the message with its newlines written as '|'. The daemon tests
read LOG to check READY/STATUS/WATCHDOG/RELOADING/STOPPING and the watchdog
cadence. Runs until SIGTERM; removes SOCKET on exit."""
import os
import signal
import socket
import sys
import time


def main():
    path, log = sys.argv[1], sys.argv[2]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
    sock.bind(path)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with open(log, "a", buffering=1) as out:
            while True:
                msg = sock.recv(4096).decode("utf-8", "replace")
                out.write("%.6f\t%s\n" % (time.monotonic(), msg.strip().replace("\n", "|")))
    finally:
        os.unlink(path)


if __name__ == "__main__":
    main()
