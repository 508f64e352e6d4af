#!/usr/bin/python3
"""A real SMTP server on loopback for patchwarden's tests (aiosmtpd).

    smtp_server.py --port P --dir DIR [--control FILE] [--auth USER:PASS]
                   [--starttls CERT KEY] [--smtps CERT KEY]

Every accepted message is written byte for byte (what the client sent, not
aiosmtpd's re-serialisation) to DIR/NNNN.eml, and one JSON line per message
goes to DIR/log.jsonl: mail_from, rcpt_tos, message_id, tls, auth, file.

The control file (JSON, read again on every command, so a test can change
the script while the server runs) injects failures:

    {"mail": 451, "rcpt": {"addr@x": 550}, "data": 451, "delay": 2.5,
     "data_text": ["5.7.1 first line", "5.7.1 second line"]}

"data_text" replaces the text of the scripted answer to DATA: a string,
or a list of strings sent as a multi-line reply ("554-first", "554 last").

"delay" holds the answer to DATA for that many seconds; a client that hangs
up meanwhile gets nothing stored, as a real MTA that never acknowledged the
end of the data would not deliver it.

Run it with /usr/bin/python3 (Debian's python3-aiosmtpd) and, as root, it
stays root (aiosmtpd's -n behaviour is the default of Controller).  Prints
"ready" on stdout once it listens; stops on SIGTERM or SIGINT.
"""
import argparse
import asyncio
import email
import email.policy
import json
import os
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


def control(path):
    if not path:
        return {}
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


class Handler:
    def __init__(self, outdir, ctl, implicit_tls):
        self.outdir = outdir
        self.implicit_tls = implicit_tls
        self.ctl = ctl
        self.count = 0
        self.lock = threading.Lock()

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        code = control(self.ctl).get("mail")
        if code:
            return "%d %s scripted refusal of the sender" % (
                code, "4.3.0" if code < 500 else "5.7.1")
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        code = control(self.ctl).get("rcpt", {}).get(address.lower())
        if code:
            return "%d %s scripted refusal of <%s>" % (
                code, "4.2.0" if code < 500 else "5.1.1", address)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        ctl = control(self.ctl)
        delay = float(ctl.get("delay", 0))
        waited = 0.0
        while waited < delay:
            await asyncio.sleep(0.05)
            waited += 0.05
            t = server.transport
            if t is None or t.is_closing():
                return "421 4.4.2 the client went away"
        code = ctl.get("data")
        if code:
            text = ctl.get("data_text")
            if not text:
                return "%d %s scripted answer to DATA" % (
                    code, "4.3.0" if code < 500 else "5.6.0")
            lines = [text] if isinstance(text, str) else text
            # aiosmtpd sends the status as given: the CRLFs inside make
            # the continuation lines of a multi-line reply.
            return "\r\n".join("%d%s%s" % (code, " " if i == len(lines) - 1
                                             else "-", line)
                                 for i, line in enumerate(lines))
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        msg = email.message_from_bytes(raw, policy=email.policy.compat32)
        with self.lock:
            self.count += 1
            name = "%04d.eml" % self.count
            with open(os.path.join(self.outdir, name), "wb") as f:
                f.write(raw)
            entry = {
                "mail_from": envelope.mail_from,
                "rcpt_tos": envelope.rcpt_tos,
                "message_id": (msg.get("Message-ID") or "").strip(),
                "tls": self.implicit_tls or session.ssl is not None,
                "auth": session.authenticated,
                "file": name,
            }
            with open(os.path.join(self.outdir, "log.jsonl"), "a") as f:
                f.write(json.dumps(entry) + "\n")
        return "250 2.0.0 OK queued as %s" % name


def tls_context(cert, key):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    return ctx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--control")
    ap.add_argument("--auth")
    ap.add_argument("--starttls", nargs=2, metavar=("CERT", "KEY"))
    ap.add_argument("--smtps", nargs=2, metavar=("CERT", "KEY"))
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)

    kwargs = {}
    if a.auth:
        user, password = a.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = (getattr(auth_data, "login", b"") == user.encode() and
                  getattr(auth_data, "password", b"") == password.encode())
            # handled=False: aiosmtpd then answers 535 itself; with the
            # default handled=True it sends nothing and the client hangs.
            return AuthResult(success=ok, handled=False)

        kwargs.update(authenticator=authenticator, auth_required=True,
                      auth_require_tls=bool(a.starttls or a.smtps))
    if a.starttls:
        kwargs.update(tls_context=tls_context(*a.starttls),
                      require_starttls=True)
    ssl_ctx = tls_context(*a.smtps) if a.smtps else None

    ctl = Controller(Handler(a.dir, a.control, bool(a.smtps)), hostname="127.0.0.1",
                     port=a.port, ssl_context=ssl_ctx,
                     server_hostname="smtp.test", **kwargs)
    ctl.start()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(0.2):
        pass
    ctl.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
