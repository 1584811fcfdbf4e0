# localauthd — set-up, build, test and demo on Debian 12 (run as root on a fresh machine).
SWIFT       ?= swift
CONFIG      ?= debug
# Debian packages the build, the tests and the demo need.
APT_PACKAGES = pkg-config libsodium-dev libdbus-1-dev libsystemd-dev dbus python3-dbus libglib2.0-bin systemd python3-gi python3-dbusmock libxml2-utils

# Installation layout (`make install PREFIX=/usr DESTDIR=…`).
PREFIX      ?= /usr/local
DESTDIR     ?=
LIBEXECDIR  ?= $(PREFIX)/libexec
UNITDIR     ?= $(PREFIX)/lib/systemd/system
DBUSDIR     ?= $(PREFIX)/share/dbus-1
DOCDIR      ?= $(PREFIX)/share/doc/localauthd
INSTALLED    = $(LIBEXECDIR)/localauthd $(UNITDIR)/localauthd.service \
               $(DBUSDIR)/system-services/org.localauth.LocalAuthentication1.service \
               $(DBUSDIR)/system.d/org.localauth.LocalAuthentication1.conf \
               $(patsubst dbus/%,$(DBUSDIR)/interfaces/%,$(wildcard dbus/*.xml)) \
               $(DOCDIR)/localauthd.conf.sample $(DOCDIR)/README.md

.PHONY: all deps build test demo bench stress install uninstall clean help

all: build

help:
	@echo "make demo   install what is missing, build, walk through the localauth CLI on a private bus"
	@echo "make test   install what is missing, build, run every test"
	@echo "make bench  release build; measure latency, throughput, memory, start-up; update BENCHMARKS.md"
	@echo "make stress the reliability suite, bigger (LOCALAUTH_STRESS=1; see README)"
	@echo "make build  build ($(CONFIG))"
	@echo "make install PREFIX=/usr [DESTDIR=…]   release build, unit, D-Bus files, sample config"
	@echo "make uninstall PREFIX=/usr [DESTDIR=…]"
	@echo "make clean  remove build products"

## Installs the Debian packages that are missing (needs root; otherwise says what to install).
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "missing packages:$$missing — run: sudo apt-get install$$missing" >&2; exit 1; fi; \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift not found: install the Swift 6 toolchain (/opt/swift/usr/bin on PATH)" >&2; exit 1; }

build: deps
	$(SWIFT) build -c $(CONFIG)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

demo: deps
	$(SWIFT) build --product localauthd
	$(SWIFT) build --product localauth
	BIN=$$($(SWIFT) build --show-bin-path) scripts/demo.sh

install: deps
	$(SWIFT) build -c release --product localauthd
	install -D -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/localauthd" "$(DESTDIR)$(LIBEXECDIR)/localauthd"
	install -d -m 0755 "$(DESTDIR)$(UNITDIR)"
	sed 's|/usr/libexec/localauthd|$(LIBEXECDIR)/localauthd|' systemd/localauthd.service > "$(DESTDIR)$(UNITDIR)/localauthd.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/localauthd.service"
	install -D -m 0644 dbus/org.localauth.LocalAuthentication1.service "$(DESTDIR)$(DBUSDIR)/system-services/org.localauth.LocalAuthentication1.service"
	install -D -m 0644 dbus/org.localauth.LocalAuthentication1.conf "$(DESTDIR)$(DBUSDIR)/system.d/org.localauth.LocalAuthentication1.conf"
	install -d -m 0755 "$(DESTDIR)$(DBUSDIR)/interfaces"
	install -m 0644 dbus/*.xml "$(DESTDIR)$(DBUSDIR)/interfaces/"
	install -D -m 0644 config/localauthd.conf "$(DESTDIR)$(DOCDIR)/localauthd.conf.sample"
	install -D -m 0644 README.md "$(DESTDIR)$(DOCDIR)/README.md"
	@echo "installed under $(DESTDIR)$(PREFIX); next: systemctl daemon-reload && systemctl reload dbus && systemctl enable --now localauthd"

uninstall:
	rm -f $(addprefix "$(DESTDIR),$(addsuffix ",$(INSTALLED)))
	-rmdir "$(DESTDIR)$(DOCDIR)" 2>/dev/null

## Release daemon and harness, the C libdbus echo service (the floor), then the measurements.
bench: deps
	$(SWIFT) build -c release --product localauthd
	$(SWIFT) build -c release --product localauth-bench
	mkdir -p .build
	cc -O2 -Wall -o .build/bench-echo bench/echo-service.c $$(pkg-config --cflags --libs dbus-1)
	$$($(SWIFT) build -c release --show-bin-path)/localauth-bench --echo .build/bench-echo --json bench/results.json --markdown BENCHMARKS.md

## The reliability suite with stress-sized rounds (override any LOCALAUTH_* count on the command line).
stress: deps
	$(SWIFT) build --build-tests
	LOCALAUTH_STRESS=1 $(SWIFT) test --skip-build --filter LocalAuthReliabilityTests

clean:
	rm -rf .build
