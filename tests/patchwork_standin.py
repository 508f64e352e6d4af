#!/usr/bin/python3
"""A stand-in for Patchwork's REST API (v3.1.3), for tests that cannot
run the real one.  It enforces the rules patchwarden's checks depend on
(docs/patchwork-api.md, read against Patchwork's source):

  GET  /api[/1.N]/patches/?msgid=ID&project=LINKNAME   lookup by Message-ID
       (ID without <>), per project; an unknown project answers 200 []
       (Patchwork's filter backend turns a bad filter into no patches)
  GET  /api[/1.N]/patches/ID/                          one patch, with its
       combined check state ("check"): per (user, context) only the
       newest check counts; fail > warning > pending > success; no
       checks: pending
  GET  /api[/1.N]/patches/ID/checks/[?context=C]       its checks
  POST /api[/1.N]/patches/ID/checks/                   201; 400 for a
       missing or unknown state, a context not matching ^[-a-zA-Z0-9_]+$
       or over 255 characters, a target_url that is not an http(s) URL
       or over 200 characters; 403 without a token ("You do not have
       permission"), with an unknown token ("Invalid token.", on a read
       too), or for a
       user who is not a maintainer of the patch's project; 404 for a
       patch that does not exist

and, for the test only:

  POST /_standin/mail?project=LINKNAME    a raw mail, read as parsemail
       reads it: a patch (a diff in the body) is stored, with its
       Message-ID, subject and sender; anything else is not.

    patchwork_standin.py serve --port P --project LINKNAME... \\
        --user NAME:TOKEN:LINKNAME[,LINKNAME]|- ... [--log FILE]

Prints "ready" once it listens; stops on SIGTERM.  Every request is a
line in --log ("METHOD PATH STATUS").

    patchwork_standin.py proxy --port P --to PORT \\
        --stall before-lookup|after-post|after-post-504|after-post-close

An HTTP proxy to 127.0.0.1:PORT (the stand-in or a real Patchwork) that
stalls once, for a test that kills the client there: before-lookup
holds the first patch lookup without forwarding it; after-post forwards
the first check POST, lets the server store it, and holds the answer.
Or it loses the answer once, as a gateway or a network does:
after-post-504 forwards the first check POST and answers 504 Gateway
Time-out in place of the server's answer; after-post-close forwards it
and closes the connection without an answer.  Later requests pass
through.  Writes "stalled" to --log when it stalls or loses an answer.
"""
import argparse
import datetime
import email
import email.policy
import email.utils
import http.client
import http.server
import json
import re
import signal
import sys
import threading
import time
import urllib.parse

STATES = ('pending', 'success', 'warning', 'fail')
SLUG = re.compile(r'^[-a-zA-Z0-9_]+$')
API = re.compile(r'^/api(?:/1\.\d)?(/.*)$')


class Store:
    def __init__(self, projects, users):
        self.lock = threading.Lock()
        self.projects = {p: i + 1 for i, p in enumerate(projects)}
        self.users = users          # token -> (id, name, set of projects)
        self.patches = []           # dicts
        self.checks = []            # dicts


def now():
    return datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%S.%f')


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'patchwork-standin/3.1.3'

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        if self.server.log:
            with open(self.server.log, 'a') as f:
                f.write('%s %s %d\n' % (self.command, self.path, status))

    def base(self):
        return 'http://%s/api' % self.headers.get('Host', 'localhost')

    def patch_json(self, p):
        st = self.server.store
        b = self.base()
        proj = next(k for k, v in st.projects.items() if v == p['project'])
        return {
            'id': p['id'], 'url': '%s/patches/%d/' % (b, p['id']),
            'web_url': '%s/../project/%s/patch/%s/' % (b, proj, p['msgid']),
            'project': {'id': p['project'], 'name': proj, 'link_name': proj,
                        'list_id': proj},
            'msgid': '<%s>' % p['msgid'], 'date': p['date'],
            'name': p['name'], 'commit_ref': None, 'pull_url': None,
            'state': 'new', 'archived': False, 'hash': None,
            'submitter': {'id': 1, 'name': p['from_name'],
                          'email': p['from_email']},
            'delegate': None, 'mbox': '%s/../patch/%d/mbox/' % (b, p['id']),
            'series': [], 'check': self.combined(p['id']),
            'checks': '%s/patches/%d/checks/' % (b, p['id']),
            'tags': {},
        }

    def check_json(self, c):
        return {
            'id': c['id'],
            'url': '%s/patches/%d/checks/%d/' % (self.base(), c['patch'],
                                                  c['id']),
            'user': {'id': c['user'], 'username': c['username']},
            'date': c['date'], 'state': c['state'],
            'target_url': c['target_url'], 'context': c['context'],
            'description': c['description'],
        }

    def combined(self, patch_id):
        # Patchwork's Patch.checks and combined_check_state.
        latest = {}
        for c in self.server.store.checks:
            if c['patch'] == patch_id:
                latest[(c['user'], c['context'])] = c
        states = [c['state'] for c in latest.values()]
        if not states:
            return 'pending'
        for s in ('fail', 'warning', 'pending'):
            if s in states:
                return s
        return 'success'

    def find_patch(self, pid):
        for p in self.server.store.patches:
            if p['id'] == pid:
                return p
        return None

    def user(self):
        """The user a token names, or the reason it is refused.  As in
        Patchwork (Django REST framework, SessionAuthentication first),
        a bad token is refused with 403 on any request, a read too."""
        auth = self.headers.get('Authorization')
        if not auth:
            return None, None
        parts = auth.split()
        if len(parts) != 2 or parts[0].lower() != 'token':
            return None, 'Invalid token header.'
        user = self.server.store.users.get(parts[1])
        return (user, None) if user else (None, 'Invalid token.')

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        m = API.match(u.path)
        st = self.server.store
        with st.lock:
            refused = self.user()[1]
            if refused:
                return self.answer(403, {'detail': refused})
            if not m:
                return self.answer(404, {'detail': 'Not found.'})
            path = m.group(1)
            if path == '/':
                return self.answer(200, {'patches': self.base() + '/patches/'})
            if path == '/patches/':
                out = list(st.patches)
                for proj in q.get('project', []):
                    if proj == '':
                        continue
                    pid = st.projects.get(proj.lower())
                    if pid is None and proj.isdigit() and \
                            int(proj) in st.projects.values():
                        pid = int(proj)
                    if pid is None:
                        return self.answer(200, [])
                    out = [p for p in out if p['project'] == pid]
                for msgid in q.get('msgid', []):
                    out = [p for p in out if p['msgid'] == msgid]
                return self.answer(200, [self.patch_json(p) for p in out])
            pm = re.match(r'^/patches/(\d+)/(checks/)?$', path)
            if not pm:
                return self.answer(404, {'detail': 'Not found.'})
            p = self.find_patch(int(pm.group(1)))
            if not p:
                return self.answer(404, {'detail': 'Not found.'})
            if not pm.group(2):
                return self.answer(200, self.patch_json(p))
            out = [c for c in st.checks if c['patch'] == p['id']]
            for ctx in q.get('context', []):
                out = [c for c in out if c['context'] == ctx]
            return self.answer(200, [self.check_json(c) for c in out])

    def body(self):
        n = int(self.headers.get('Content-Length') or 0)
        return self.rfile.read(n) if n else b''

    def do_POST(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        data = self.body()
        st = self.server.store
        with st.lock:
            if u.path == '/_standin/mail':
                return self.mail(q.get('project', [''])[0], data)
            m = API.match(u.path)
            pm = re.match(r'^/patches/(\d+)/checks/$', m.group(1)) if m else None
            if not pm:
                return self.answer(405, {'detail': 'Method "POST" not allowed.'})
            user, refused = self.user()
            if refused:
                return self.answer(403, {'detail': refused})
            p = self.find_patch(int(pm.group(1)))
            if not p:
                return self.answer(404, {'detail': 'Not found.'})
            proj = next(k for k, v in st.projects.items() if v == p['project'])
            if not user or proj not in user[2]:
                return self.answer(403, {'detail': 'You do not have permission'
                                         ' to perform this action.'})
            try:
                c = json.loads(data.decode('utf-8'))
                assert isinstance(c, dict)
            except (ValueError, AssertionError):
                return self.answer(400, {'detail': 'JSON parse error'})
            errs = {}
            if c.get('state') in (None, ''):
                errs['state'] = ['A check must have a state.']
            elif c['state'] not in STATES:
                errs['state'] = ['"%s" is not a valid choice.' % c['state']]
            ctx = c.get('context', 'default')
            if not isinstance(ctx, str) or not SLUG.match(ctx):
                errs['context'] = ['Enter a valid "slug" consisting of letters,'
                                   ' numbers, underscores or hyphens.']
            elif len(ctx) > 255:
                errs['context'] = ['Ensure this field has no more than 255 '
                                   'characters.']
            url = c.get('target_url')
            if url is not None and url != '':
                if not isinstance(url, str) or \
                        not re.match(r'^https?://[^\s/]+(/\S*)?$', url):
                    errs['target_url'] = ['Enter a valid URL.']
                elif len(url) > 200:
                    errs['target_url'] = ['Ensure this field has no more than'
                                          ' 200 characters.']
            if errs:
                return self.answer(400, errs)
            check = {
                'id': len(st.checks) + 1, 'patch': p['id'], 'user': user[0],
                'username': user[1], 'date': now(), 'state': c['state'],
                'target_url': url or None, 'context': ctx,
                'description': c.get('description'),
            }
            st.checks.append(check)
            return self.answer(201, self.check_json(check))

    def mail(self, project, data):
        st = self.server.store
        pid = st.projects.get(project.lower())
        if pid is None:
            return self.answer(400, {'detail': 'no project %s' % project})
        msg = email.message_from_bytes(data, policy=email.policy.default)
        msgid = (msg.get('Message-ID') or '').strip()
        if not (msgid.startswith('<') and msgid.endswith('>')):
            return self.answer(400, {'detail': 'no Message-ID'})
        msgid = msgid[1:-1]
        body = msg.get_body(preferencelist=('plain',))
        text = body.get_content() if body else ''
        if not re.search(r'^(diff --git |--- \S.*\n\+\+\+ )', text, re.M):
            return self.answer(200, {'detail': 'not a patch'})
        if any(p['msgid'] == msgid and p['project'] == pid
               for p in st.patches):
            return self.answer(200, {'detail': 'duplicate'})
        frm = email.utils.parseaddr(str(msg.get('From', '')))
        p = {'id': len(st.patches) + 1, 'project': pid, 'msgid': msgid,
             'name': re.sub(r'\s+', ' ', str(msg.get('Subject', ''))),
             'from_name': frm[0], 'from_email': frm[1], 'date': now()}
        st.patches.append(p)
        return self.answer(201, {'id': p['id']})


def serve(a):
    users = {}
    for i, spec in enumerate(a.user):
        name, token, projs = spec.split(':', 2)
        users[token] = (i + 1, name,
                        set() if projs == '-' else set(projs.lower().split(',')))
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', a.port), Handler)
    srv.daemon_threads = True
    srv.store = Store([p.lower() for p in a.project], users)
    srv.log = a.log
    run(srv)


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        pass

    def forward(self):
        n = int(self.headers.get('Content-Length') or 0)
        data = self.rfile.read(n) if n else None
        srv = self.server
        path = urllib.parse.urlsplit(self.path).path
        lookup = self.command == 'GET' and path.endswith('/patches/')
        post = self.command == 'POST' and path.endswith('/checks/')
        with srv.lock:
            stall = not srv.stalled and (
                (srv.stall == 'before-lookup' and lookup) or
                (srv.stall.startswith('after-post') and post))
            srv.stalled |= stall
        if stall and srv.stall == 'before-lookup':
            self.hold()
        c = http.client.HTTPConnection('127.0.0.1', srv.to, timeout=120)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() not in ('connection', 'keep-alive')}
        c.request(self.command, self.path, body=data, headers=hdrs)
        r = c.getresponse()
        body = r.read()
        if stall and srv.stall == 'after-post-504':
            self.note()
            self.send_response(504)
            self.send_header('Content-Type', 'text/html')
            self.send_header('Content-Length', '33')
            self.send_header('Connection', 'close')
            self.end_headers()
            self.wfile.write(b'<html>Gateway Time-out</html>\r\n\r\n')
            self.close_connection = True
            c.close()
            return
        if stall and srv.stall == 'after-post-close':
            self.note()
            self.close_connection = True
            c.close()
            return
        if stall:
            self.hold()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ('connection', 'keep-alive', 'transfer-encoding',
                                 'content-length'):
                self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        c.close()

    def note(self):
        if self.server.log:
            with open(self.server.log, 'a') as f:
                f.write('stalled\n')

    def hold(self):
        self.note()
        while True:
            time.sleep(3600)

    do_GET = do_POST = forward


def proxy(a):
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', a.port), Proxy)
    srv.daemon_threads = True
    srv.to = a.to
    srv.stall = a.stall
    srv.stalled = False
    srv.lock = threading.Lock()
    srv.log = a.log
    run(srv)


def run(srv):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print('ready', flush=True)
    try:
        srv.serve_forever()
    except SystemExit:
        pass


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('serve')
    s.add_argument('--port', type=int, required=True)
    s.add_argument('--project', action='append', required=True)
    s.add_argument('--user', action='append', default=[])
    s.add_argument('--log')
    p = sub.add_parser('proxy')
    p.add_argument('--port', type=int, required=True)
    p.add_argument('--to', type=int, required=True)
    p.add_argument('--stall', choices=('before-lookup', 'after-post',
                                       'after-post-504', 'after-post-close'),
                   required=True)
    p.add_argument('--log')
    a = ap.parse_args()
    serve(a) if a.cmd == 'serve' else proxy(a)


if __name__ == '__main__':
    main()
