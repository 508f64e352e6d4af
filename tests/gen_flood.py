#!/usr/bin/env python3
"""Generate a realistic patch flood mixed with normal list traffic.

The flood follows the 2016 episode: one sender posts hundreds of separate
messages titled "[PATCH NNNN/TOTAL] Replace numeric parameter like 0444 with
macro", with no cover letter and no In-Reply-To, the same commit message
each time, each patch turning an octal mode into S_I* macros in a different
kernel file.  Around it runs normal traffic: threaded series with cover
letters, replies (some to flood patches), resends, v2 rerolls, one
legitimate big threaded series ("[PATCH 000/141] Fix fall-through warnings
for Clang") and a maintainer posting many unrelated patches in one day.

Every message is delivered to one or more lists.  The output directory gets
one mbox per list (OUT/<list>.mbox), OUT/arrival.mbox with every delivery in
arrival order (each copy with the List-Id of the list it came through), and
OUT/expected.json describing what was generated.  With --tree DIR the
pre-image of every flood patch's file is written under DIR, so that
"git apply --check" can be run on the flood patches.

Python 3 standard library only; the output depends only on the options.
"""

import argparse
import email.header
import email.utils
import json
import os
import random
import sys
from datetime import datetime, timedelta, timezone

LISTS = {
    "lkml": "linux-kernel.vger.kernel.org",
    "linux-media": "linux-media.vger.kernel.org",
    "netdev": "netdev.vger.kernel.org",
    "linux-wireless": "linux-wireless.vger.kernel.org",
    "linux-usb": "linux-usb.vger.kernel.org",
    "linux-scsi": "linux-scsi.vger.kernel.org",
    "alsa-devel": "alsa-devel.alsa-project.org",
    "dri-devel": "dri-devel.lists.freedesktop.org",
    "linux-input": "linux-input.vger.kernel.org",
    "linux-hwmon": "linux-hwmon.vger.kernel.org",
    "linux-mmc": "linux-mmc.vger.kernel.org",
    "linux-mips": "linux-mips.vger.kernel.org",
}

# (directory, list, subject prefix)
SUBSYSTEMS = [
    ("drivers/media/usb", "linux-media", "media"),
    ("drivers/media/pci", "linux-media", "media"),
    ("drivers/net/ethernet", "netdev", "net"),
    ("drivers/net/wireless", "linux-wireless", "wireless"),
    ("drivers/usb/gadget", "linux-usb", "usb: gadget"),
    ("drivers/usb/serial", "linux-usb", "USB: serial"),
    ("drivers/scsi", "linux-scsi", "scsi"),
    ("sound/pci", "alsa-devel", "ALSA"),
    ("sound/soc/codecs", "alsa-devel", "ASoC"),
    ("drivers/gpu/drm", "dri-devel", "drm"),
    ("drivers/input/touchscreen", "linux-input", "Input"),
    ("drivers/hwmon", "linux-hwmon", "hwmon"),
    ("drivers/mmc/host", "linux-mmc", "mmc"),
    ("arch/mips/kernel", "linux-mips", "MIPS"),
]

DRIVER_STEMS = ["em28", "cx23", "saa71", "rtl81", "ath", "mt76", "dw", "tegra",
                "sun4i", "omap", "imx", "qcom", "bcm", "mxl", "si21", "tw68",
                "ivtv", "pvr", "hda", "es18", "lm", "adt", "ads", "wm89",
                "max", "ti", "smsc", "r82", "ne2", "tg3"]
FILE_SUFFIXES = ["", "_core", "_main", "_dvb", "_i2c", "_sysfs", "_debugfs",
                 "_cards", "_video", "_hw"]
PARAMS = ["debug", "max_pages", "irq_mode", "use_dma", "fw_name", "timeout_ms",
          "log_level", "enable_msi", "poll_interval", "card_type", "nr_queues",
          "rx_ring", "tx_ring", "autosuspend", "led_mode", "vref", "gain"]

FLOOD_SUBJECT = "Replace numeric parameter like 0444 with macro"
FLOOD_BODY = (
    "I find that the developers often just specified the numeric value\n"
    "when calling a macro which is defined with a parameter for access "
    "permission.\n"
    "As we know, these numeric value for access permission have had the "
    "corresponding macro,\n"
    "and that using macro can improve the robustness and readability of the "
    "code,\n"
    "thus, I suggest replacing the numeric parameter with the macro.\n")

PEOPLE = [
    ("Ada Reviewer", "ada.reviewer@example.com"),
    ("Bert Hacker", "bert@hacker.example.net"),
    ("Jürgen Öster", "juergen.oester@example.de"),
    ("Chen Wei", "chen.wei@example.cn"),
    ("Dana Driver", "dana.driver@example.org"),
    ("Eli Embedded", "eli@embedded.example.com"),
    ("Fatima Net", "fatima@netdev.example.org"),
    ("Goran Sound", "goran@sound.example.eu"),
]
MAINTAINER = ("Mia Maint", "mia.maint@example.net")
BIG_SERIES_AUTHOR = ("Gus Gray", "gus.gray@example.com")
FLOOD_SENDER = ("Pat Flood", "pat.flood@example.org")
FLOOD_COSIGNER = ("Quinn Cosign", "quinn.cosign@example.org")


def hexid(rng, n=7):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def fmt_addr(name, addr):
    try:
        name.encode("ascii")
        return "%s <%s>" % (name, addr)
    except UnicodeEncodeError:
        return "%s <%s>" % (email.header.Header(name, "utf-8").encode(), addr)


class Files:
    """Hands out distinct, real-looking kernel source paths."""

    def __init__(self, rng):
        self.rng = rng
        self.used = set()

    def new(self, subsystem=None):
        rng = self.rng
        while True:
            sub = subsystem or rng.choice(SUBSYSTEMS)
            stem = rng.choice(DRIVER_STEMS) + str(rng.randint(0, 99))
            name = stem + rng.choice(FILE_SUFFIXES) + ".c"
            path = "%s/%s/%s" % (sub[0], stem, name)
            if path not in self.used:
                self.used.add(path)
                return sub, stem, path


# ---- edits: (context before, removed, added, context after) ------------

def flood_edit(rng, driver):
    """One octal -> symbolic edit, as the 2016 flood made them."""
    p = rng.choice(PARAMS)
    kind = rng.randrange(7)
    desc = 'MODULE_PARM_DESC(%s, "%s %s");' % (p, driver, p.replace("_", " "))
    if kind == 0:
        return (["", "static int %s;" % p],
                ["module_param(%s, int, 0444);" % p],
                ["module_param(%s, int, S_IRUGO);" % p], [desc, ""])
    if kind == 1:
        return (["", "static bool %s = true;" % p],
                ["module_param(%s, bool, 0644);" % p],
                ["module_param(%s, bool, S_IRUGO | S_IWUSR);" % p], [desc, ""])
    if kind == 2:
        return (["", "static unsigned int %s_%s;" % (driver, p)],
                ["module_param_named(%s, %s_%s, uint, 0200);" % (p, driver, p)],
                ["module_param_named(%s, %s_%s, uint, S_IWUSR);"
                 % (p, driver, p)], [desc, ""])
    if kind == 3:
        return (["}", ""],
                ["static DEVICE_ATTR(%s, 0644, %s_show, %s_store);"
                 % (p, p, p)],
                ["static DEVICE_ATTR(%s, S_IRUGO | S_IWUSR, %s_show, %s_store);"
                 % (p, p, p)], ["", "static struct attribute *%s_attrs[] = {"
                                % driver])
    if kind == 4:
        return (["}", ""],
                ["static DEVICE_ATTR(%s, 0444, %s_show, NULL);" % (p, p)],
                ["static DEVICE_ATTR(%s, S_IRUGO, %s_show, NULL);" % (p, p)],
                ["", "static struct attribute *%s_attrs[] = {" % driver])
    if kind == 5:
        return (["\tif (!priv->debugfs)", "\t\treturn -ENOMEM;"],
                ['\tdebugfs_create_u32("%s", 0600, priv->debugfs, &priv->%s);'
                 % (p, p)],
                ['\tdebugfs_create_u32("%s", S_IRUSR | S_IWUSR, priv->debugfs,'
                 ' &priv->%s);' % (p, p)], ["\treturn 0;", "}"])
    return (["static struct kobj_attribute %s_attrs[] = {" % driver,
             "\t__ATTR(version, 0444, version_show, NULL),"],
            ["\t__ATTR(%s, 0444, %s_show, NULL)," % (p, p)],
            ["\t__ATTR(%s, S_IRUGO, %s_show, NULL)," % (p, p)],
            ["};", ""])


def normal_edit(rng, driver):
    """One ordinary change: (summary, edit)."""
    v = rng.choice(["priv", "dev", "chip", "card", "port", "ctx"])
    kind = rng.randrange(7)
    if kind == 0:
        return ("fix typo in comment",
                (["", "\tint ret;"],
                 ["\t/* Intialise the %s before use */" % v],
                 ["\t/* Initialise the %s before use */" % v],
                 ["\t%s->state = 0;" % v, ""]))
    if kind == 1:
        return ("use kzalloc instead of kmalloc and memset",
                (["\tstruct %s_%s *%s;" % (driver, v, v), ""],
                 ["\t%s = kmalloc(sizeof(*%s), GFP_KERNEL);" % (v, v),
                  "\tmemset(%s, 0, sizeof(*%s));" % (v, v)],
                 ["\t%s = kzalloc(sizeof(*%s), GFP_KERNEL);" % (v, v)],
                 ["\tif (!%s)" % v, "\t\treturn -ENOMEM;"]))
    if kind == 2:
        return ("mark expected switch fall-through",
                (["\tcase %d:" % rng.randint(1, 9),
                  "\t\t%s->mode = %d;" % (v, rng.randint(0, 7))],
                 ["\t\t/* fall through */"],
                 ["\t\tfallthrough;"],
                 ["\tdefault:", "\t\tbreak;"]))
    if kind == 3:
        return ("remove unused variable",
                (["\tstruct device *dev = &pdev->dev;", "\tint ret;"],
                 ["\tint i;"], [], ["", "\t%s = devm_kzalloc(dev, sizeof(*%s),"
                                    " GFP_KERNEL);" % (v, v)]))
    if kind == 4:
        return ("check allocation failure",
                (["", "\t%s->buf = kmalloc(%d, GFP_KERNEL);"
                  % (v, rng.choice([64, 128, 4096]))],
                 [], ["\tif (!%s->buf)" % v, "\t\treturn -ENOMEM;"],
                 ["\t%s->len = 0;" % v, ""]))
    if kind == 5:
        return ("use dev_err instead of printk",
                (["\tret = %s_hw_init(%s);" % (driver, v), "\tif (ret) {"],
                 ['\t\tprintk(KERN_ERR "%s: init failed\\n");' % driver],
                 ['\t\tdev_err(%s->dev, "init failed\\n");' % v],
                 ["\t\treturn ret;", "\t}"]))
    p = rng.choice(PARAMS)
    return ("use octal permissions",
            (["", "static int %s;" % p],
             ["module_param(%s, int, S_IRUGO | S_IWUSR);" % p],
             ["module_param(%s, int, 0644);" % p],
             ['MODULE_PARM_DESC(%s, "%s");' % (p, p.replace("_", " ")), ""]))


def render_diff(rng, path, edits, new_file=False):
    """A git diff of one file with one hunk per edit; returns (text,
    preimage lines, insertions, deletions)."""
    out = ["diff --git a/%s b/%s" % (path, path),
           "index %s..%s 100644" % (hexid(rng), hexid(rng)),
           "--- a/%s" % path, "+++ b/%s" % path]
    pre = ["// SPDX-License-Identifier: GPL-2.0", "#include <linux/module.h>"]
    ins = dels = 0
    line = rng.randint(20, 60)
    offset = 0
    for before, rm, ad, after in edits:
        while len(pre) < line - 1:
            pre.append("/* %s line %d */" % (os.path.basename(path),
                                            len(pre) + 1))
        start = len(pre) + 1
        old_n = len(before) + len(rm) + len(after)
        new_n = len(before) + len(ad) + len(after)
        stem = os.path.basename(path).split("_")[0].split(".")[0]
        func = rng.choice(["static int %s_probe(struct platform_device *pdev)"
                           % stem, "static int debug;", ""])
        out.append("@@ -%d,%d +%d,%d @@%s" % (start, old_n, start + offset,
                                              new_n,
                                              (" " + func) if func else ""))
        out.extend(" " + x for x in before)
        out.extend("-" + x for x in rm)
        out.extend("+" + x for x in ad)
        out.extend(" " + x for x in after)
        pre.extend(before + rm + after)
        ins += len(ad)
        dels += len(rm)
        offset += len(ad) - len(rm)
        line = len(pre) + rng.randint(15, 80)
    pre.extend(["", "MODULE_LICENSE(\"GPL\");"])
    return "\n".join(out) + "\n", pre, ins, dels


def diffstat(path, ins, dels):
    bar = "+" * ins + "-" * dels
    return (" %s | %d %s\n 1 file changed, %d insertion%s(+), %d deletion%s(-)\n"
            % (path, ins + dels, bar, ins, "" if ins == 1 else "s",
               dels, "" if dels == 1 else "s"))


# ---- messages ---------------------------------------------------------------

class Msg:
    __slots__ = ("mid", "sender", "subject", "date", "body", "lists", "to",
                 "cc", "irt", "refs", "kind", "extra")

    def __init__(self, mid, sender, subject, date, body, lists, kind,
                 to=None, cc=None, irt=None, refs=None, extra=None):
        self.mid = mid
        self.sender = sender
        self.subject = subject
        self.date = date
        self.body = body
        self.lists = lists
        self.kind = kind
        self.to = to or []
        self.cc = cc or []
        self.irt = irt
        self.refs = refs or []
        self.extra = extra or {}

    def render(self, list_key=None):
        h = ["From: %s" % fmt_addr(*self.sender),
             "To: %s" % ", ".join(self.to),
             ]
        if self.cc:
            h.append("Cc: %s" % ", ".join(self.cc))
        h.append("Subject: %s" % self.subject)
        h.append("Date: %s" % email.utils.format_datetime(self.date))
        h.append("Message-ID: <%s>" % self.mid)
        if self.irt:
            h.append("In-Reply-To: <%s>" % self.irt)
        if self.refs:
            h.append("References: %s" % " ".join("<%s>" % r
                                                 for r in self.refs))
        if self.kind in ("flood", "patch", "series-patch", "cover", "resend",
                         "big-series", "big-cover", "maintainer"):
            h.append("X-Mailer: git-send-email 2.9.2")
        h.append("MIME-Version: 1.0")
        h.append("Content-Type: text/plain; charset=UTF-8")
        h.append("Content-Transfer-Encoding: 8bit")
        if list_key:
            lid = LISTS[list_key]
            h.append("List-Id: <%s>" % lid)
            h.append("X-Mailing-List: %s@%s" % tuple(lid.split(".", 1)))
        return "\n".join(h) + "\n\n" + self.body


def mbox_entry(msg, list_key, when):
    text = msg.render(list_key)
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        # mboxrd quoting: ">*From " gets one more ">".
        s = ln.lstrip(">")
        if s.startswith("From "):
            lines[i] = ">" + ln
    stamp = when.astimezone(timezone.utc).strftime("%a %b %e %H:%M:%S %Y")
    return "From %s %s\n%s\n" % (msg.sender[1], stamp,
                                 "\n".join(lines).rstrip("\n") + "\n")


class Gen:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.files = Files(self.rng)
        self.msgs = []
        self.seq = 0
        self.preimages = {}
        self.patch_msgs = []   # normal single patches that may be resent

    def mid(self, sender, when, git=True):
        self.seq += 1
        if git:
            return "%d-%d-%d-git-send-email-%s" % (
                int(when.timestamp()), 4000 + self.seq % 997, self.seq,
                sender[1])
        return "%s.%s.%d@%s" % (when.strftime("%Y%m%d%H%M%S"),
                                hexid(self.rng, 8), self.seq,
                                sender[1].split("@")[1])

    def add(self, m):
        self.msgs.append(m)
        return m

    def sob(self, *people):
        return "".join("Signed-off-by: %s <%s>\n" % p for p in people)

    # -- the flood --
    def flood(self):
        a = self.args
        rng = self.rng
        numbers = sorted(rng.sample(range(1, a.total + 1), a.flood_size))
        when = datetime(2016, 8, 2, 8, 3, 11,
                        tzinfo=timezone(timedelta(hours=8)))
        ids = []
        lists = set()
        people = set()
        for n in numbers:
            # 1 to 4 seconds apart, as in 2016; --flood-gap spreads
            # the same patches slower (db/FLOODS.md, "Burst or campaign").
            when += timedelta(seconds=a.flood_gap or rng.randint(1, 4))
            sub, driver, path = self.files.new()
            edits = [flood_edit(rng, driver)
                     for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            diff, pre, ins, dels = render_diff(rng, path, edits)
            self.preimages[path] = pre
            maint = "%s.maintainer@example.org" % driver
            lst = ["lkml", sub[1]]
            to = [maint]
            cc = ["%s@%s" % tuple(LISTS[x].split(".", 1)) for x in lst]
            if rng.random() < 0.2:
                extra = rng.choice(list(LISTS))
                if extra not in lst:
                    lst.append(extra)
                    cc.append("%s@%s" % tuple(LISTS[extra].split(".", 1)))
            body = (FLOOD_BODY + "\n" + self.sob(FLOOD_COSIGNER, FLOOD_SENDER)
                    + "---\n" + diffstat(path, ins, dels) + "\n" + diff
                    + "-- \n2.9.2\n\n")
            m = self.add(Msg(self.mid(FLOOD_SENDER, when), FLOOD_SENDER,
                             "[PATCH %0*d/%d] %s" % (len(str(a.total)), n,
                                                     a.total, FLOOD_SUBJECT),
                             when, body, lst, "flood", to=to, cc=cc,
                             extra={"number": n, "path": path}))
            ids.append(m.mid)
            lists.update(lst)
            people.update([maint] + cc)
        self.flood_ids = ids
        self.flood_lists = sorted(lists)
        self.flood_people = len(people)

    # -- normal traffic --
    def patch_body(self, summary_body, author, edits, path, signers=()):
        diff, _, ins, dels = render_diff(self.rng, path, edits)
        return (summary_body + "\n" + self.sob(*(tuple(signers) + (author,)))
                + "---\n" + diffstat(path, ins, dels) + "\n" + diff
                + "-- \n2.9.2\n\n")

    def base_date(self):
        return (datetime(2016, 8, 1, 6, 0, 0,
                         tzinfo=timezone(timedelta(hours=self.rng.choice(
                             [-7, 0, 1, 2, 8]))))
                + timedelta(seconds=self.rng.randint(0, 3 * 86400)))

    def series(self, budget, version=1, of=None):
        """A cover letter and n patches threaded under it."""
        rng = self.rng
        n = max(1, min(budget - 1, rng.randint(2, 6)))
        if of:
            author, sub, driver, paths, when = (of["author"], of["sub"],
                                                of["driver"], of["paths"],
                                                of["when"] + timedelta(
                                                    days=rng.randint(1, 2)))
            n = min(len(paths), budget - 1)
            paths = paths[:n]
        else:
            author = rng.choice(PEOPLE)
            sub, driver, _ = self.files.new()
            paths = [self.files.new(sub)[2] for _ in range(n)]
            when = self.base_date()
        vtag = " v%d" % version if version > 1 else ""
        topic = "%s: %s: %s" % (sub[2], driver, rng.choice(
            ["cleanups", "fix probe error paths", "modernise sysfs handling",
             "small fixes"]))
        lst = ["lkml", sub[1]]
        to = ["%s.maintainer@example.org" % driver]
        cc = ["%s@%s" % tuple(LISTS[x].split(".", 1)) for x in lst]
        cover_body = ("This series %s.\n\n" % rng.choice(
            ["tidies up the driver before the next merge window",
             "fixes issues found with sparse and smatch",
             "addresses review comments on the probe path"]))
        if version > 1:
            cover_body += ("Changes since v%d:\n- rebased\n- addressed review"
                           " comments\n\n" % (version - 1))
        cover_body += "%s (%d):\n" % (author[0], n)
        cover = self.add(Msg(self.mid(author, when), author,
                             "[PATCH%s 0/%d] %s" % (vtag, n, topic), when,
                             cover_body + "\n-- \n2.9.2\n\n", lst,
                             "cover", to=to, cc=cc,
                             irt=of["cover"] if of else None,
                             refs=[of["cover"]] if of else None))
        for k in range(1, n + 1):
            when += timedelta(seconds=rng.randint(1, 3))
            summary, edit = normal_edit(rng, driver)
            body = self.patch_body("%s in %s.\n" % (summary.capitalize(),
                                                    driver),
                                   author, [edit], paths[k - 1])
            self.add(Msg(self.mid(author, when), author,
                         "[PATCH%s %d/%d] %s: %s: %s" % (vtag, k, n, sub[2],
                                                         driver, summary),
                         when, body, lst, "series-patch", to=to, cc=cc,
                         irt=cover.mid, refs=[cover.mid]))
        return {"author": author, "sub": sub, "driver": driver,
                "paths": paths, "when": when, "cover": cover.mid,
                "count": n + 1}

    def single(self, author=None, when=None, kind="patch"):
        rng = self.rng
        author = author or rng.choice(PEOPLE)
        sub, driver, path = self.files.new()
        when = when or self.base_date()
        summary, edit = normal_edit(rng, driver)
        body = self.patch_body("%s in %s.\n" % (summary.capitalize(), driver),
                               author, [edit], path)
        lst = ["lkml", sub[1]] if rng.random() < 0.6 else [sub[1]]
        m = self.add(Msg(self.mid(author, when), author,
                         "[PATCH] %s: %s: %s" % (sub[2], driver, summary),
                         when, body, lst, kind,
                         to=["%s.maintainer@example.org" % driver],
                         cc=["%s@%s" % tuple(LISTS[x].split(".", 1))
                             for x in lst]))
        self.patch_msgs.append(m)
        return m

    def resend(self):
        rng = self.rng
        orig = rng.choice(self.patch_msgs)
        when = orig.date + timedelta(days=rng.randint(7, 14))
        m = self.add(Msg(self.mid(orig.sender, when), orig.sender,
                         orig.subject.replace("[PATCH]", "[PATCH RESEND]", 1),
                         when, orig.body, list(orig.lists), "resend",
                         to=orig.to, cc=orig.cc,
                         extra={"original": orig.mid}))
        return m

    def reply(self, target):
        rng = self.rng
        who = rng.choice(PEOPLE + [MAINTAINER])
        when = target.date + timedelta(minutes=rng.randint(5, 600))
        subj = target.subject
        if not subj.lower().startswith("re:"):
            subj = "Re: " + subj
        quoted = "\n".join("> " + x for x in target.body.split("\n")[:6])
        if target.kind == "flood":
            text = ("There are %d patches with identical subject in my "
                    "inbox.\nPlease send one series per subsystem, with a "
                    "cover letter,\nand agree on the approach first: octal "
                    "is what we prefer.\n" % self.args.total)
        else:
            text = rng.choice(["Looks good to me.\n\nReviewed-by: %s <%s>\n"
                               % who,
                               "Could you explain why this is needed?\n",
                               "Applied, thanks.\n"])
        body = "On %s, %s wrote:\n%s\n\n%s" % (
            email.utils.format_datetime(target.date), target.sender[0],
            quoted, text)
        return self.add(Msg(self.mid(who, when, git=False), who, subj, when,
                            body, list(target.lists), "reply",
                            to=[target.sender[1]], cc=target.cc,
                            irt=target.mid,
                            refs=target.refs + [target.mid]))

    def big_series(self, size):
        rng = self.rng
        total = 141
        size = min(size, total + 1)
        author = BIG_SERIES_AUTHOR
        when = datetime(2016, 8, 2, 15, 0, 0, tzinfo=timezone.utc)
        cover = self.add(Msg(
            self.mid(author, when), author,
            "[PATCH 000/%d] Fix fall-through warnings for Clang" % total,
            when,
            "This series aims to fix almost all remaining fall-through "
            "warnings\nin order to enable -Wimplicit-fallthrough for "
            "Clang.\n\nEach patch goes to the maintainers of one driver.\n"
            "\n-- \n2.27.0\n\n", ["lkml"], "big-cover",
            to=["linux-kernel@vger.kernel.org"]))
        ids = [cover.mid]
        for k in range(1, size):
            when += timedelta(seconds=rng.randint(2, 6))
            sub, driver, path = self.files.new()
            edit = (["\tcase %d:" % rng.randint(1, 9),
                     "\t\tret = %s_reset(dev);" % driver],
                    [], ["\t\tfallthrough;"], ["\tcase %d:" % rng.randint(10, 19),
                                               "\t\tbreak;"])
            body = self.patch_body(
                "In preparation to enable -Wimplicit-fallthrough for Clang, "
                "fix a warning\nby explicitly adding a fallthrough pseudo-"
                "keyword.\n", author, [edit], path)
            lst = ["lkml", sub[1]]
            m = self.add(Msg(self.mid(author, when), author,
                             "[PATCH %03d/%d] %s: %s: Fix fall-through "
                             "warnings for Clang" % (k, total, sub[2], driver),
                             when, body, lst, "big-series",
                             to=["%s.maintainer@example.org" % driver],
                             cc=["%s@%s" % tuple(LISTS[x].split(".", 1))
                                 for x in lst],
                             irt=cover.mid, refs=[cover.mid]))
            ids.append(m.mid)
        return {"cover": cover.mid, "total": total, "size": len(ids),
                "message_ids": ids}

    def maintainer_day(self, count):
        day = datetime(2016, 8, 2, 9, 0, 0, tzinfo=timezone(timedelta(hours=2)))
        ids = []
        for _ in range(count):
            day += timedelta(minutes=self.rng.randint(5, 40))
            ids.append(self.single(MAINTAINER, day, "maintainer").mid)
        return ids

    def normal(self, budget):
        rng = self.rng
        info = {"series": [], "rerolls": [], "resends": [], "big_series": None,
                "maintainer": []}
        start = len(self.msgs)
        if budget <= 0:
            return info
        big = max(1, min(142, budget * 3 // 10))
        info["big_series"] = self.big_series(big)
        budget -= info["big_series"]["size"]
        mcount = min(budget, max(1, budget // 8))
        info["maintainer"] = self.maintainer_day(mcount)
        budget -= mcount
        flood_pool = [m for m in self.msgs if m.kind == "flood"]
        while budget > 0:
            r = rng.random()
            if r < 0.3 and budget >= 3:
                s = self.series(budget)
                info["series"].append(s["cover"])
                budget -= s["count"]
                if budget >= 3 and rng.random() < 0.5:
                    v2 = self.series(budget, version=2, of=s)
                    info["rerolls"].append({"v1": s["cover"],
                                            "v2": v2["cover"]})
                    budget -= v2["count"]
            elif r < 0.45 and self.patch_msgs:
                m = self.resend()
                info["resends"].append({"message_id": m.mid,
                                        "original": m.extra["original"]})
                budget -= 1
            elif r < 0.75:
                pool = self.msgs[start:]
                if flood_pool and rng.random() < 0.3:
                    pool = flood_pool
                self.reply(rng.choice(pool))
                budget -= 1
            else:
                self.single()
                budget -= 1
        return info

    # -- output --
    def deliveries(self):
        rng = self.rng
        out = []
        for i, m in enumerate(self.msgs):
            for lst in m.lists:
                if self.args.shuffle:
                    delay = timedelta(seconds=rng.randint(0, 8 * 3600))
                else:
                    delay = timedelta(seconds=rng.randint(0, 20))
                out.append((m.date + delay, i, lst))
        out.sort(key=lambda d: (d[0], d[1], d[2]))
        return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--flood-size", type=int, default=300,
                    help="flood messages to write (default 300)")
    ap.add_argument("--flood-gap", type=int, default=0,
                    help="seconds between two flood messages (default: 1 to"
                    " 4, random)")
    ap.add_argument("--total", type=int, default=1285,
                    help="total claimed by the counter (default 1285)")
    ap.add_argument("--noise", type=int, default=200,
                    help="normal messages to write (default 200)")
    ap.add_argument("--shuffle", action="store_true",
                    help="deliver out of order (hours of delivery delay)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tree", help="write the flood patches' pre-images here")
    a = ap.parse_args(argv)
    if a.flood_size < 0 or a.noise < 0 or a.flood_gap < 0:
        ap.error("sizes must not be negative")
    if a.total < a.flood_size:
        ap.error("--total must be at least --flood-size")

    g = Gen(a)
    g.flood_ids, g.flood_lists, g.flood_people = [], [], 0
    if a.flood_size:
        g.flood()
    info = g.normal(a.noise)
    dels = g.deliveries()

    os.makedirs(a.out, exist_ok=True)
    per_list = {}
    arrival = []
    for when, i, lst in dels:
        entry = mbox_entry(g.msgs[i], lst, when)
        arrival.append(entry)
        per_list.setdefault(lst, []).append(entry)
    with open(os.path.join(a.out, "arrival.mbox"), "w", encoding="utf-8") as f:
        f.write("\n".join(arrival))
    for lst, entries in per_list.items():
        with open(os.path.join(a.out, lst + ".mbox"), "w",
                  encoding="utf-8") as f:
            f.write("\n".join(entries))

    if a.tree:
        for path, pre in g.preimages.items():
            full = os.path.join(a.tree, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write("\n".join(pre) + "\n")

    kinds = {}
    for m in g.msgs:
        kinds.setdefault(m.kind, []).append(m.mid)
    normal_ids = [m.mid for m in g.msgs if m.kind != "flood"]
    list_counts = {k: len(v) for k, v in sorted(per_list.items())}
    cross = sum(1 for m in g.msgs if len(m.lists) > 1)
    expected = {
        "seed": a.seed,
        "shuffle": a.shuffle,
        "messages": len(g.msgs),
        "deliveries": len(dels),
        "cross_posted": cross,
        "lists": {k: {"list_id": LISTS[k], "deliveries": n}
                  for k, n in list_counts.items()},
        "flood": {
            "sender": "%s <%s>" % FLOOD_SENDER,
            "sender_address": FLOOD_SENDER[1],
            "subject": FLOOD_SUBJECT,
            "size": len(g.flood_ids),
            "claimed_total": a.total,
            "lists": g.flood_lists,
            "recipients": g.flood_people,
            "edits": ["0444 -> S_IRUGO", "0644 -> S_IRUGO | S_IWUSR",
                      "0200 -> S_IWUSR", "0600 -> S_IRUSR | S_IWUSR"],
            "message_ids": g.flood_ids,
            "paths": sorted(g.preimages),
        },
        "normal": {
            "size": len(normal_ids),
            "message_ids": normal_ids,
            "kinds": {k: v for k, v in sorted(kinds.items())
                      if k != "flood"},
            "series_covers": info["series"],
            "rerolls": info["rerolls"],
            "resends": info["resends"],
            "big_series": info["big_series"],
            "maintainer": {"sender": "%s <%s>" % MAINTAINER,
                           "message_ids": info["maintainer"]},
        },
    }
    with open(os.path.join(a.out, "expected.json"), "w",
              encoding="utf-8") as f:
        json.dump(expected, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
