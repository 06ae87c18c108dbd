#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A slow client for the endpoint's tests.

halfopen.py SOURCE HOST PORT N SECONDS: from address SOURCE, open N TCP
connections to HOST:PORT and send on each only the start of a request
line. Prints "open N" once every connection is made (the server may
close some at once: that is what it may do with a client over its
limit). Then, one byte a second, it goes on with the request line of
each connection the server still holds, so that none is idle, until a
line arrives on standard input; from then on it sends nothing. It holds
every connection until standard input closes or SECONDS pass.
"""
import select
import socket
import sys
import time


def main():
    source, host, port, n, seconds = sys.argv[1:6]
    end = time.monotonic() + float(seconds)
    held = []
    for _ in range(int(n)):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source, 0))
        s.settimeout(max(0.1, end - time.monotonic()))
        s.connect((host, int(port)))
        try:
            s.send(b"GET /metr")
        except OSError:
            pass  # closed by the server already
        held.append(s)
    print(f"open {len(held)}", flush=True)
    trickle = list(held)
    while time.monotonic() < end:
        wait = min(1.0, end - time.monotonic()) if trickle else end - time.monotonic()
        r, _, _ = select.select([sys.stdin], [], [], max(0.0, wait))
        if r:
            line = sys.stdin.buffer.readline()
            if not line:
                break
            trickle = []
        for s in list(trickle):
            try:
                s.send(b"a")
            except OSError:
                trickle.remove(s)  # closed by the server
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
