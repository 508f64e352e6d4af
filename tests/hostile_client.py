#!/usr/bin/python3
"""Hostile HTTP clients for tests/integration/hostile.sh, on loopback.

    hostile_client.py posts PORT PATH COUNT FILE
        COUNT connections at once, each sending a POST of FILE to PATH
        (headers and body written straight away, as an attacker does,
        not waiting for "100 Continue"); prints the status of each
        answer, sorted, space separated ("-" for a connection closed
        unanswered).
    hostile_client.py slow PORT COUNT SOURCE
        COUNT connections from address SOURCE (127.0.0.2: another
        client than the tests' own 127.0.0.1), each sending half a
        request and then a header line every 10 s; prints "open N"
        once N of them are open (those the server refused at once are
        closed and not counted), then holds them until killed.
    hostile_client.py slowpost PORT PATH COUNT LENGTH
        COUNT POSTs to PATH announcing LENGTH bytes of body and sending
        one; prints "open N" once N of them wait, unanswered, for the
        rest (those answered at once are not counted), then holds them
        until killed.
"""
import socket
import sys
import threading
import time


def post(port, path, body, out, i):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    status = "-"
    try:
        s.sendall(("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "Content-Type: message/rfc822\r\n"
                   "Content-Length: %d\r\nConnection: close\r\n\r\n"
                   % (path, len(body))).encode())
        try:
            s.sendall(body)
        except OSError:
            pass    # refused before the body: the server closed
        data = b""
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        if data.startswith(b"HTTP/1."):
            status = data.split(b" ", 2)[1].decode()
    except OSError:
        pass
    finally:
        s.close()
    out[i] = status


def posts(port, path, count, path_body):
    body = open(path_body, "rb").read()
    out = ["-"] * count
    ts = [threading.Thread(target=post, args=(port, path, body, out, i))
          for i in range(count)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print(" ".join(sorted(out)))


def slow(port, count, source):
    held = []
    for _ in range(count):
        s = socket.socket()
        s.bind((source, 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(s)
        except OSError:
            s.close()
    # Those the server closed at once are not held.
    alive = unanswered(held)
    print("open %d" % len(alive), flush=True)
    while True:
        time.sleep(10)
        for s in alive:
            try:
                s.send(b"X-Slow: 1\r\n")
            except OSError:
                pass


def unanswered(conns):
    """Those of conns the server has neither answered nor closed."""
    time.sleep(0.5)
    alive = []
    for s in conns:
        s.setblocking(False)
        try:
            s.recv(1)   # an answer, or the end: not waiting
            s.close()
            continue
        except BlockingIOError:
            pass
        except OSError:
            s.close()
            continue
        alive.append(s)
    return alive


def slowpost(port, path, count, length):
    held = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "Content-Length: %d\r\n\r\nx" % (path, length)).encode())
        held.append(s)
    print("open %d" % len(unanswered(held)), flush=True)
    while True:
        time.sleep(10)


def main():
    if sys.argv[1] == "posts":
        posts(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "slow":
        slow(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] == "slowpost":
        slowpost(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]),
                 int(sys.argv[5]))
    else:
        sys.exit("usage: see the top of this file")


main()
