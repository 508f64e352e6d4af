# patchwarden: one non-recursive Makefile.
#
#   make            build ./patchwarden
#   make deps       install missing Debian packages (apt-get; sudo when not root)
#   make run        the main job on the embedded default (local SQLite, dry-run replies)
#   make test       the whole suite, TEST_JOBS suites at a time (default: the
#                   cores); ends with "N passed, N failed"
#   (run, test, asan, bench: missing packages are named, then installed
#   through make deps, or the command to install them is printed)
#   make asan       the whole suite under AddressSanitizer and UBSan
#   make bench      benchmarks against checkpatch.pl and git mailinfo
#   make install    the binary, man pages, example config, systemd unit and
#                   bash completion under DESTDIR/PREFIX
#   make deb        a Debian package (dpkg-buildpackage), checked by lintian
#
# Dependencies flow one way: bot -> db -> checks.  checks/ is compiled
# with GLib and Nettle (SHA-1 for patch ids) only, db/ with GLib and
# SQLite, so a wrong include fails the build instead of a review.

CC       ?= cc
CFLAGS   ?= -O2 -g
CFLAGS_EXTRA ?=
BUILD    ?= build
PREFIX   ?= /usr/local
PKG_CONFIG ?= pkg-config
VERSION   = 0.1

STD      = -std=c11 -D_GNU_SOURCE -DPW_VERSION='"$(VERSION)"' -Wall -Wextra -Wshadow -Wmissing-prototypes \
           -Wno-unused-parameter -I.
CHECKS_CFLAGS = $(shell $(PKG_CONFIG) --cflags glib-2.0 nettle 2>/dev/null)
DB_CFLAGS     = $(shell $(PKG_CONFIG) --cflags glib-2.0 sqlite3 2>/dev/null)
BOT_PKGS      = gmime-3.0 libcurl libgit2 sqlite3 json-glib-1.0 nettle libmicrohttpd \
                libsystemd opendkim libpsl
BOT_CFLAGS    = $(shell $(PKG_CONFIG) --cflags $(BOT_PKGS) 2>/dev/null)
LIBS          = $(shell $(PKG_CONFIG) --libs $(BOT_PKGS) 2>/dev/null) -lpthread -lm
TEST_LIBS     = $(LIBS) $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

empty :=
space := $(empty) $(empty)

CHECKS_SRC = $(sort $(wildcard checks/*.c))
DB_SRC     = $(sort $(wildcard db/*.c))
BOT_SRC    = $(sort $(filter-out bot/main.c,$(wildcard bot/*.c)))
UNIT_SRC   = $(sort $(wildcard tests/unit/test_*.c))

CHECKS_OBJ = $(CHECKS_SRC:%.c=$(BUILD)/%.o)
DB_OBJ     = $(DB_SRC:%.c=$(BUILD)/%.o)
BOT_OBJ    = $(BOT_SRC:%.c=$(BUILD)/%.o)
LIB        = $(BUILD)/libpatchwarden.a
BIN        = $(if $(filter build,$(BUILD)),patchwarden,$(BUILD)/patchwarden)
UNIT_BIN   = $(UNIT_SRC:%.c=$(BUILD)/%)

DEPS_PKGS = build-essential pkg-config libglib2.0-dev libgmime-3.0-dev \
            libgit2-dev libcurl4-openssl-dev libsqlite3-dev sqlite3 \
            libjson-glib-dev libmicrohttpd-dev nettle-dev libsystemd-dev \
            libcmocka-dev git xz-utils libopendkim-dev python3-dkim \
            libpsl-dev publicsuffix \
            ca-certificates python3 python3-aiosmtpd public-inbox \
            python3-prometheus-client \
            dovecot-imapd valgrind bc time openssl curl chromium \
            man-db systemd git-pw python3-django \
            python3-djangorestframework python3-django-filters

.PHONY: all deps need-deps run test asan bench fuzz install deb clean check-includes unit

all: check-includes $(BIN)

$(BIN): $(BUILD)/bot/main.o $(LIB)
	$(CC) $(CFLAGS) $(CFLAGS_EXTRA) $(LDFLAGS) -o $@ $^ $(LIBS)

$(LIB): $(CHECKS_OBJ) $(DB_OBJ) $(BOT_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/checks/%.o: checks/%.c
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(CHECKS_CFLAGS) $(CFLAGS) $(CFLAGS_EXTRA) -MMD -MP -c -o $@ $<

$(BUILD)/db/%.o: db/%.c
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(DB_CFLAGS) $(CFLAGS) $(CFLAGS_EXTRA) -MMD -MP -c -o $@ $<

$(BUILD)/bot/%.o: bot/%.c
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(BOT_CFLAGS) $(CFLAGS) $(CFLAGS_EXTRA) -MMD -MP -c -o $@ $<

$(BUILD)/tests/unit/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(STD) $(BOT_CFLAGS) $(CFLAGS) $(CFLAGS_EXTRA) -o $@ $< $(LIB) $(TEST_LIBS)

unit: $(UNIT_BIN)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# make deps installs the missing packages of DEPS_PKGS (apt-get; sudo
# when not root, which asks for a password where sudo wants one).
deps:
	@missing=""; for p in $(DEPS_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# need-deps, before make test, run, asan and bench: nothing when every
# package is there; else it names the missing ones and installs them
# through make deps, as root or with a sudo that needs no password, and
# otherwise stops with the command to run.  Never a silent install.
need-deps:
	@missing=""; for p in $(DEPS_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	echo "make: missing Debian packages:$$missing"; \
	if [ "$$(id -u)" != 0 ] && ! sudo -n true 2>/dev/null; then \
	  echo "make: installing them needs root; run this, then make again:"; \
	  echo "  sudo apt-get install --no-install-recommends$$missing"; \
	  exit 1; \
	fi; \
	echo "make: installing them with make deps (apt-get install)"; \
	$(MAKE) --no-print-directory deps DEPS_PKGS="$$missing"

# make run: the service on an embedded default: a public-inbox archive
# made from the bundled sample, subscribed by path, the local store,
# replies to ./outbox.mbox.
RUN_DB    = patchwarden.db
RUN_INBOX = sample-inbox
run: need-deps
	@$(MAKE) --no-print-directory all
	@test -d $(RUN_INBOX) || ./patchwarden archive $(RUN_INBOX) tests/data/sample.mbox
	@./patchwarden subscribe --db $(RUN_DB) list --format csv | grep -q '^sample,' || \
	  ./patchwarden subscribe --db $(RUN_DB) add sample $(RUN_INBOX) --interval 5s
	@echo "make run: the service on the bundled sample"; \
	 echo "  archive  ./$(RUN_INBOX) (public-inbox v2, from tests/data/sample.mbox), subscribed as 'sample', polled every 5 s"; \
	 echo "  store    ./$(RUN_DB); replies go to ./outbox.mbox (dry run: nothing is sent)"; \
	 echo "  The archive's mail is backfill: stored and checked, never answered.  Try, in another terminal:"; \
	 echo "    ./patchwarden archive $(RUN_INBOX) tests/data/arrival.eml   # a new patch: its reply lands in ./outbox.mbox"; \
	 echo "    ./patchwarden subscribe list --db $(RUN_DB)"; \
	 echo "    ./patchwarden query findings --db $(RUN_DB)"; \
	 echo "  Stop with Ctrl-C: the service finishes the message at hand, commits and exits."
	./patchwarden run --config tests/data/run.conf --db $(RUN_DB)

test: need-deps
	@$(MAKE) --no-print-directory all unit
	PW=$(abspath $(BIN)) UNIT_DIR=$(abspath $(BUILD)/tests/unit) tests/run.sh $(if $(TEST_JOBS),-j $(TEST_JOBS))

asan: need-deps
	@$(MAKE) --no-print-directory BUILD=build-asan \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined" \
	  LDFLAGS="-fsanitize=address,undefined" build-asan/patchwarden unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	PW=$(abspath build-asan/patchwarden) UNIT_DIR=$(abspath build-asan/tests/unit) tests/run.sh $(if $(TEST_JOBS),-j $(TEST_JOBS))

bench: need-deps
	@$(MAKE) --no-print-directory all
	tests/bench/run.sh

# Fuzzing: every harness of tests/fuzz/ (the GMime mail parser, and the
# diff parser, rule runner, flood fingerprints and subject parser of
# checks/) under libFuzzer for FUZZ_SECONDS each, seeded from tests/corpus
# and tests/cases (tests/fuzz/run.sh).  clang comes from FUZZ_PKGS,
# installed here rather than by "make deps" so CI's install stays small;
# where it cannot be installed, the harnesses replay their seeds
# standalone.
FUZZ_SECONDS ?= 60
FUZZ_PKGS = clang libclang-rt-dev
fuzz: need-deps
	@$(MAKE) --no-print-directory deps DEPS_PKGS="$(FUZZ_PKGS)" || \
	  echo "make fuzz: could not install $(FUZZ_PKGS)"
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) CC=$(CC) tests/fuzz/run.sh

# The fence between the folders, checked on every build: checks/ may
# include libc, GLib, Nettle (SHA-1) and the x86 intrinsics, and its own
# headers; db/ may add SQLite and checks/.  Anything else fails the build.
LIBC_HEADERS = assert ctype errno inttypes limits stdarg stdbool stddef \
               stdint stdio stdlib string strings time
CHECKS_ALLOWED = $(LIBC_HEADERS:%=<%.h>) <glib.h> <nettle/[a-z0-9_-]+\.h> \
                 <immintrin.h> "checks/[a-z0-9_]+\.(h|def)"
DB_ALLOWED     = $(LIBC_HEADERS:%=<%.h>) <glib.h> <sqlite3.h> \
                 "checks/[a-z0-9_]+\.h" "db/[a-z0-9_-]+\.h"
FENCE_DIR ?= .
check-includes:
	@bad=$$(grep -HnE '^[[:space:]]*#[[:space:]]*include' $(FENCE_DIR)/checks/*.[ch] | \
	  grep -vE '#[[:space:]]*include[[:space:]]+($(subst $(space),|,$(strip $(CHECKS_ALLOWED))))[[:space:]]*($$|/[*/])'); \
	if [ -n "$$bad" ]; then echo "$$bad"; \
	  echo "make: checks/ may include only libc, GLib, Nettle and checks/ headers"; exit 1; fi
	@bad=$$(grep -HnE '^[[:space:]]*#[[:space:]]*include' $(FENCE_DIR)/db/*.[ch] | \
	  grep -vE '#[[:space:]]*include[[:space:]]+($(subst $(space),|,$(strip $(DB_ALLOWED))))[[:space:]]*($$|/[*/])'); \
	if [ -n "$$bad" ]; then echo "$$bad"; \
	  echo "make: db/ may include only libc, GLib, SQLite, checks/ and db/ headers"; exit 1; fi

# make install [PREFIX=/usr/local] [DESTDIR=...]: the unit's ExecStart
# names the binary where PREFIX puts it; UNITDIR, where systemd looks
# for units under PREFIX (Debian's package passes /lib/systemd/system).
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
DOCDIR   ?= $(PREFIX)/share/doc/patchwarden
UNITDIR  ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
install: all
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/patchwarden
	install -D -m 0644 deploy/patchwarden.1 $(DESTDIR)$(MANDIR)/man1/patchwarden.1
	install -D -m 0644 deploy/patchwarden.conf.5 $(DESTDIR)$(MANDIR)/man5/patchwarden.conf.5
	install -D -m 0644 deploy/patchwarden.conf.example $(DESTDIR)$(DOCDIR)/patchwarden.conf.example
	install -D -m 0644 docs/operating.md $(DESTDIR)$(DOCDIR)/operating.md
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|/usr/bin/patchwarden|$(BINDIR)/patchwarden|g' deploy/patchwarden.service \
	  >$(DESTDIR)$(UNITDIR)/patchwarden.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/patchwarden.service
	install -D -m 0644 deploy/patchwarden.bash-completion $(DESTDIR)$(BASHCOMPDIR)/patchwarden

# make deb: the Debian package, built from a copy of the tree's files
# (tracked or not, ignored ones left out, so that the build leaves
# nothing here) with dpkg-buildpackage, checked with
# lintian, and its contents listed; the .deb, .buildinfo and .changes
# are left in DEB_OUT.  Installed here, not by "make deps": the
# packaging tools, then the Build-Depends of debian/control that are
# missing (apt-get build-dep).  DEB_INSTALL=1
# also installs the package with dpkg -i, shows the system user it
# made, stores a sample as that user in the service's folder, and
# purges the package again (root only; the user stays, as Debian's
# policy has it).
DEB_PKGS = dpkg-dev debhelper fakeroot lintian
DEB_OUT ?= build/deb
deb:
	@$(MAKE) --no-print-directory deps DEPS_PKGS="$(DEB_PKGS)"
	@rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src
	git ls-files -z --cached --others --exclude-standard | \
	  tar -c --null -T - | tar -x -C $(DEB_OUT)/src
	@cd $(DEB_OUT)/src && dpkg-checkbuilddeps 2>/dev/null || { \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get build-dep -y -qq ./; }
	cd $(DEB_OUT)/src && dpkg-buildpackage -us -uc -b
	lintian --fail-on error $(DEB_OUT)/patchwarden_*.deb
	dpkg-deb --contents $(DEB_OUT)/patchwarden_*.deb
	@if [ -n "$(DEB_INSTALL)" ]; then set -e; \
	  dpkg -i $(DEB_OUT)/patchwarden_*.deb; \
	  getent passwd patchwarden; patchwarden --version; \
	  man -w patchwarden.conf; \
	  runuser -u patchwarden -- patchwarden ingest \
	    --db /var/lib/patchwarden/smoke.db - <tests/data/sample.mbox; \
	  rm -f /var/lib/patchwarden/smoke.db*; \
	  dpkg -P patchwarden; \
	fi

clean:
	rm -rf build build-asan patchwarden
