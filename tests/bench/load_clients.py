#!/usr/bin/env python3
"""Dashboard clients for tests/bench/load.sh, in one process.

    load_clients.py URL CLIENTS DIR PATH...

CLIENTS threads ask URL+PATH (a PATH drawn at random) until killed, each
one request every 0.5 to 1 s, on a new connection each time; a line
"STATUS SECONDS PATH" per request to
DIR/client-I.log.  One process, rather than a shell and a curl per
request, so that the load generator does not take the CPU the ingest
it measures needs (a curl started per request costs ~45 ms of CPU).
"""
import random
import sys
import threading
import time
import urllib.error
import urllib.request


def client(i, url, paths, folder):
    with open(f"{folder}/client-{i}.log", "a", buffering=1) as log:
        while True:
            p = random.choice(paths)
            t0 = time.monotonic()
            try:
                with urllib.request.urlopen(url + p, timeout=60) as r:
                    r.read()
                    code = r.status
            except urllib.error.HTTPError as e:
                code = e.code
            except OSError:
                code = "000"
            log.write(f"{code} {time.monotonic() - t0:.6f} {p}\n")
            time.sleep(random.uniform(0.5, 1.0))


def main():
    url, n, folder, paths = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    for i in range(1, n + 1):
        threading.Thread(target=client, args=(i, url, paths, folder),
                         daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
