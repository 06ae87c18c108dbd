#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A slow client for the endpoint's tests.

halfopen.py SOURCE HOST PORT N SECONDS: from address SOURCE, open N TCP
connections to HOST:PORT and send on each only the start of a request
line, then hold them all until standard input closes or SECONDS pass.
Prints "open N" once every connection is made (the server may close some
at once: that is what it may do with a client over its limit).
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
    while time.monotonic() < end:
        r, _, _ = select.select([sys.stdin], [], [], end - time.monotonic())
        if r and not sys.stdin.buffer.read1(4096):
            break
    for s in held:
        s.close()


if __name__ == "__main__":
    main()
