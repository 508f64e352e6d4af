#!/usr/bin/python3
"""A TCP proxy on loopback that stalls or drops a connection part way, so
that a test can see what patchwarden does when a remote (SMTP, HTTP,
IMAP) stops answering or hangs up in the middle of a transfer.

    stall_proxy.py --port P --to PORT (--stall-after N | --drop-after N)
                   [--times K] [--log FILE]

Forwards 127.0.0.1:P to 127.0.0.1:PORT.  Once the server has sent N
bytes on a connection (the chunk that crosses N goes through whole):
--stall-after holds the connection open and forwards nothing more, in
either direction, so the server hears nothing more of the client either
(a stalled SMTP server never receives the message); --drop-after closes
both sides.  Only the first K connections that reach N misbehave
(default: every one); later ones pass through.  Each misbehaviour is a
line "stall" or "drop" in --log.  Prints "ready" once it listens; stops
on SIGTERM.
"""
import argparse
import asyncio
import signal


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--to', type=int, required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--stall-after', type=int)
    g.add_argument('--drop-after', type=int)
    ap.add_argument('--times', type=int, default=-1)
    ap.add_argument('--log')
    a = ap.parse_args()
    limit = a.stall_after if a.stall_after is not None else a.drop_after
    what = 'stall' if a.stall_after is not None else 'drop'
    left = [a.times]

    def note():
        if a.log:
            with open(a.log, 'a') as f:
                f.write(what + '\n')

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection('127.0.0.1', a.to)
        except OSError:
            cw.close()
            return
        held = asyncio.Event()	# the connection misbehaves now

        async def up():		# client to server, until held
            try:
                while not held.is_set():
                    rd = asyncio.ensure_future(cr.read(65536))
                    hw = asyncio.ensure_future(held.wait())
                    done, _ = await asyncio.wait(
                        {rd, hw}, return_when=asyncio.FIRST_COMPLETED)
                    if rd not in done:
                        rd.cancel()
                        break
                    hw.cancel()
                    chunk = rd.result()
                    if not chunk:
                        sw.close()
                        return
                    sw.write(chunk)
                    await sw.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass

        async def down():	# server to client, counting
            sent = 0
            armed = left[0] != 0
            try:
                while True:
                    chunk = await sr.read(65536)
                    if not chunk:
                        cw.close()
                        return
                    cw.write(chunk)
                    await cw.drain()
                    sent += len(chunk)
                    if armed and sent >= limit:
                        if left[0] == 0:
                            armed = False
                            continue
                        left[0] -= 1
                        note()
                        held.set()
                        if what == 'drop':
                            cw.close()
                            sw.close()
                        return
            except (ConnectionError, asyncio.CancelledError):
                pass

        if limit == 0 and left[0] != 0:
            left[0] -= 1
            note()
            held.set()
            if what == 'drop':
                cw.close()
                sw.close()
                return
        else:
            await asyncio.gather(up(), down())
        # A stalled connection stays open, silent, until the client
        # gives up (its reads end) or the proxy stops.
        if held.is_set() and what == 'stall':
            try:
                while await cr.read(65536):
                    pass
            except (ConnectionError, asyncio.CancelledError):
                pass
            cw.close()
            sw.close()

    server = await asyncio.start_server(handle, '127.0.0.1', a.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    print('ready', flush=True)
    async with server:
        await stop.wait()


asyncio.run(main())
