# localauthd — set-up, build, test and demo on Debian 12 (run as root on a fresh machine).
SWIFT       ?= swift
CONFIG      ?= debug
# Debian packages the build, the tests and the demo need.
APT_PACKAGES = pkg-config libsodium-dev libdbus-1-dev libsystemd-dev dbus python3-dbus libglib2.0-bin systemd

.PHONY: all deps build test demo clean help

all: build

help:
	@echo "make demo   install what is missing, build, walk through the localauth CLI on a private bus"
	@echo "make test   install what is missing, build, run every test"
	@echo "make build  build ($(CONFIG))"
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

clean:
	rm -rf .build
