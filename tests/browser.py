#!/usr/bin/python3
# patchwarden: one headless Chromium for a whole test script
# (tests/integration/web_browser.sh), driven over the DevTools protocol
# on a pipe (--remote-debugging-pipe), instead of a browser started for
# every page: starting Chromium is most of what a page costs.
#
# Usage: browser.py CHROMIUM PROFILE-DIR LOG-FILE
# Reads one request a line on stdin, its words apart by tabs; answers
# each with its length in bytes on a line, then that many bytes (the
# answer and a newline):
#
#   load URL DOM-FILE PNG-FILE  the page as "chromium --headless
#                               --virtual-time-budget=3000" shows it at
#                               1280x1600: its DOM after its scripts ran
#                               (what --dump-dom prints) into DOM-FILE,
#                               a screenshot into PNG-FILE; "ok", or why not
#   title DOM-FILE              the document's title in the dumped DOM
#   png FILE                    "yes" when FILE is a 1280x1600 PNG of more
#                               than 20,000 bytes (a page, not a blank)
#   chart LABEL DOM-FILE        "BARS SUM": the bars (of non-zero height)
#                               of the chart "LABEL per ..." and the sum
#                               of their data-n
#   fit URL                     the page loaded 400 and 1,400 px wide:
#                               "WIDTH:SCROLL-WIDTH" for each, apart by a
#                               space (a page that fits scrolls no wider
#                               than its viewport), each followed, when
#                               it does not fit, by "(ELEMENT@RIGHT,...)":
#                               the first elements that reach past it
import base64, fcntl, html.parser, json, os, select, struct, subprocess, sys

TIMEOUT = 60	# seconds a page may take


class Chrome:
    def __init__(self, exe, profile, log):
        to_r, to_w = os.pipe()		# we write, Chromium reads (its fd 3)
        from_r, from_w = os.pipe()	# Chromium writes (its fd 4), we read
        # Out of the way of 3 and 4, so that the child's dup2 cannot
        # overwrite one end with the other.
        hi_r = fcntl.fcntl(to_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(from_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_r)
        os.close(from_w)

        def fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--disable-extensions", "--hide-scrollbars",
             "--user-data-dir=" + profile, "--remote-debugging-pipe",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=fds, pass_fds=(3, 4), start_new_session=True)
        os.close(hi_r)
        os.close(hi_w)
        self.w, self.r = to_w, from_r
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        while data:
            data = data[os.write(self.w, data):]
        return self.next_id

    def read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - os.times().elapsed
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise RuntimeError("Chromium did not answer in time")
            d = os.read(self.r, 1 << 20)
            if not d:
                raise RuntimeError("Chromium ended")
            self.buf += d
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, deadline=None):
        """The result of a command; events met meanwhile are kept."""
        deadline = deadline or os.times().elapsed + TIMEOUT
        i = self.send(method, params, session)
        while True:
            m = self.read(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, session, deadline):
        while True:
            for k, m in enumerate(self.events):
                if m["method"] == method and m.get("sessionId") == session:
                    del self.events[k]
                    return m
            m = self.read(deadline)
            if "method" in m:
                self.events.append(m)

    def tab(self, url, width, height, then):
        """Loads url in a tab of its own, width x height, and returns
        then(session, deadline); the tab is closed after."""
        deadline = os.times().elapsed + TIMEOUT
        target = self.call("Target.createTarget", {"url": "about:blank"},
                           deadline=deadline)["targetId"]
        s = self.call("Target.attachToTarget",
                      {"targetId": target, "flatten": True},
                      deadline=deadline)["sessionId"]
        try:
            self.call("Page.enable", session=s, deadline=deadline)
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height,
                       "deviceScaleFactor": 1, "mobile": False},
                      session=s, deadline=deadline)
            nav = self.call("Page.navigate", {"url": url}, session=s,
                            deadline=deadline)
            if nav.get("errorText"):
                raise RuntimeError("%s: %s" % (url, nav["errorText"]))
            self.wait_event("Page.loadEventFired", s, deadline)
            return then(s, deadline)
        finally:
            self.call("Target.closeTarget", {"targetId": target},
                      deadline=deadline)
            self.events = [m for m in self.events if m.get("sessionId") != s]

    def load(self, url, dom_file, png_file):
        """A page of its own (a fresh tab), as the command line's
        --virtual-time-budget=3000 --dump-dom / --screenshot load it."""
        def dump(s, deadline):
            # Its scripts, timers included, get 3 s of virtual time,
            # as --virtual-time-budget=3000 gives them.
            self.call("Emulation.setVirtualTimePolicy",
                      {"policy": "pauseIfNetworkFetchesPending",
                       "budget": 3000}, session=s, deadline=deadline)
            self.wait_event("Emulation.virtualTimeBudgetExpired", s, deadline)
            dom = self.call("Runtime.evaluate",
                            {"expression": "document.documentElement.outerHTML",
                             "returnByValue": True}, session=s,
                            deadline=deadline)["result"]["value"]
            with open(dom_file, "w", encoding="utf-8") as f:
                f.write(dom + "\n")
            shot = self.call("Page.captureScreenshot", {"format": "png"},
                             session=s, deadline=deadline)["data"]
            with open(png_file, "wb") as f:
                f.write(base64.b64decode(shot))
            return "ok"
        return self.tab(url, 1280, 1600, dump)

    # The width of the page's viewport and of what it scrolls, and
    # what reaches past the viewport when it scrolls wider.
    FIT = """(() => {
        const d = document.documentElement, w = d.clientWidth, sw = d.scrollWidth;
        const past = [];
        if (sw > w)
            for (const e of document.querySelectorAll("body *")) {
                const r = e.getBoundingClientRect();
                if (r.right > w + 1 && past.length < 4)
                    past.push(e.tagName.toLowerCase() +
                              (e.className && typeof e.className == "string" ?
                               "." + e.className.replace(/ /g, ".") : "") +
                              "@" + Math.round(r.right));
            }
        return w + ":" + sw + (past.length ? "(" + past.join(",") + ")" : "");
    })()"""

    def fit(self, url):
        """The page at 400 and 1,400 px wide: see FIT."""
        def measure(s, deadline):
            return self.call("Runtime.evaluate",
                             {"expression": self.FIT, "returnByValue": True},
                             session=s, deadline=deadline)["result"]["value"]
        return " ".join(self.tab(url, w, 900, measure) for w in (400, 1400))

    def close(self):
        try:
            self.call("Browser.close", deadline=os.times().elapsed + 10)
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()


class Title(html.parser.HTMLParser):
    # The document title: the first <title>, in <head> (SVG has its own).
    t, inside, done = "", False, False

    def handle_starttag(self, tag, a):
        self.inside = tag == "title" and not self.done

    def handle_endtag(self, tag):
        self.done = self.done or self.inside
        self.inside = False

    def handle_data(self, d):
        if self.inside:
            self.t += d


def title(dom_file):
    p = Title()
    p.feed(open(dom_file, encoding="utf-8").read())
    return p.t


def png(path):
    b = open(path, "rb").read()
    w, h = struct.unpack(">II", b[16:24])
    good = b[:8] == b"\x89PNG\r\n\x1a\n" and (w, h) == (1280, 1600) \
        and len(b) > 20000
    return "yes" if good else "no (%dx%d, %d bytes)" % (w, h, len(b))


class Chart(html.parser.HTMLParser):
    def __init__(self, label):
        super().__init__()
        self.label, self.inside, self.bars, self.total = label, False, 0, 0

    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "svg" and (a.get("aria-label") or "").startswith(self.label + " per "):
            self.inside = True
        elif tag == "rect" and self.inside and a.get("class") == "bar" \
                and float(a.get("height", 0)) > 0:
            self.bars += 1
            self.total += int(a["data-n"])

    def handle_endtag(self, tag):
        if tag == "svg":
            self.inside = False


def chart(label, dom_file):
    p = Chart(label)
    p.feed(open(dom_file, encoding="utf-8").read())
    return "%d %d" % (p.bars, p.total)


def main():
    exe, profile, log = sys.argv[1:4]
    chrome = None
    out = sys.stdout.buffer
    with open(log, "ab") as logf:
        try:
            for line in sys.stdin.buffer:
                words = line.decode("utf-8", "surrogateescape").rstrip("\n").split("\t")
                try:
                    if words[0] == "load" and len(words) == 4:
                        if chrome is None:
                            chrome = Chrome(exe, profile, logf)
                        text = chrome.load(*words[1:])
                    elif words[0] == "title" and len(words) == 2:
                        text = title(words[1])
                    elif words[0] == "png" and len(words) == 2:
                        text = png(words[1])
                    elif words[0] == "chart" and len(words) == 3:
                        text = chart(words[1], words[2])
                    elif words[0] == "fit" and len(words) == 2:
                        if chrome is None:
                            chrome = Chrome(exe, profile, logf)
                        text = chrome.fit(words[1])
                    else:
                        text = "not a request: " + " ".join(words)
                except Exception as e:
                    text = "error: %s" % e
                data = (text + "\n").encode("utf-8", "surrogateescape")
                out.write(b"%d\n" % len(data) + data)
                out.flush()
        finally:
            if chrome:
                chrome.close()


main()
