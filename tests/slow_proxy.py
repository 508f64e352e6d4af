#!/usr/bin/python3
"""A TCP proxy on loopback that slows what the server sends, so that a
test can signal patchwarden while it is in the middle of a fetch.

    slow_proxy.py --port P --to PORT [--rate BYTES_PER_SECOND]

Forwards 127.0.0.1:P to 127.0.0.1:PORT; the server's answers go out at
most --rate bytes a second per connection (default 1 MiB).  Prints
"ready" once it listens; stops on SIGTERM.
"""
import argparse
import asyncio
import signal


async def pipe(reader, writer, rate):
    try:
        while True:
            chunk = await reader.read(16384 if rate else 65536)
            if not chunk:
                break
            writer.write(chunk)
            await writer.drain()
            if rate:
                await asyncio.sleep(len(chunk) / rate)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--port', type=int, required=True)
    ap.add_argument('--to', type=int, required=True)
    ap.add_argument('--rate', type=int, default=1 << 20)
    a = ap.parse_args()

    async def handle(cr, cw):
        try:
            sr, sw = await asyncio.open_connection('127.0.0.1', a.to)
        except OSError:
            cw.close()
            return
        await asyncio.gather(pipe(cr, sw, 0), pipe(sr, cw, a.rate))

    server = await asyncio.start_server(handle, '127.0.0.1', a.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    print('ready', flush=True)
    async with server:
        await stop.wait()


asyncio.run(main())
