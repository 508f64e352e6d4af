#!/usr/bin/python3
"""Load a patchwarden dashboard with concurrent clients and report latency.

First each endpoint is asked once, alone (its "first" time: the answer
computed from the store, not yet kept by the server).  Then each of
CLIENTS threads keeps one HTTP/1.1 connection and requests the
endpoints in turn (each thread starting at another one) until every
endpoint has been asked REQUESTS times in all, then prints, per
endpoint, the requests, p50, p99 and max in milliseconds, and a last
line "worst p99 X ms".  Every answer must be 200: another status is
counted as an error and makes the exit status 1.

With MIN_SECONDS in the environment, the clients go on past REQUESTS
until that many seconds have passed (to load a store while it is
written for as long as the writer runs).

usage: web_client.py BASE_URL CLIENTS REQUESTS PATH...
"""
import os
import http.client
import sys
import threading
import time
import urllib.parse


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    base, clients, requests = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    paths = sys.argv[4:]
    u = urllib.parse.urlsplit(base)
    lat = {p: [] for p in paths}
    errors = {p: 0 for p in paths}
    lock = threading.Lock()
    total = requests * len(paths)
    counter = [0]
    began = [0.0]
    min_seconds = float(os.environ.get("MIN_SECONDS", "0"))

    def worker(k):
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
        i = k
        while True:
            with lock:
                if counter[0] >= total and time.perf_counter() - began[0] >= min_seconds:
                    break
                counter[0] += 1
            p = paths[i % len(paths)]
            i += 1
            start = time.perf_counter()
            try:
                conn.request("GET", p)
                r = conn.getresponse()
                r.read()
                status = r.status
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
                status = 0
            dt = (time.perf_counter() - start) * 1000
            with lock:
                lat[p].append(dt)
                if status != 200:
                    errors[p] += 1
        conn.close()

    first = {}
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    for p in paths:
        t = time.perf_counter()
        conn.request("GET", p)
        conn.getresponse().read()
        first[p] = (time.perf_counter() - t) * 1000
    conn.close()
    t0 = began[0] = time.perf_counter()
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(clients)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    wall = time.perf_counter() - t0
    worst = 0.0
    print("  %-60s %8s %6s %8s %8s %8s %6s" % ("endpoint", "first ms", "n", "p50 ms", "p99 ms", "max ms", "errors"))
    for p in paths:
        xs = lat[p]
        p99 = pct(xs, 99)
        worst = max(worst, p99)
        shown = p if len(p) <= 60 else p[:57] + "..."
        print("  %-60s %8.1f %6d %8.1f %8.1f %8.1f %6d" % (shown, first[p], len(xs), pct(xs, 50), p99, max(xs), errors[p]))
    done = sum(len(v) for v in lat.values())
    print("  %d requests by %d clients in %.1f s: %.0f requests/s" % (done, clients, wall, done / wall))
    print("worst first %.1f ms" % max(first.values()))
    print("worst p99 %.1f ms" % worst)
    return 1 if sum(errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
