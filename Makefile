# SPDX-License-Identifier: Apache-2.0
# localauthd — set-up, build, test and demo on Debian 12 (run as root on a fresh machine).
SWIFT       ?= swift
CONFIG      ?= debug
# Debian packages the build, the tests and the demo need.
APT_PACKAGES = pkg-config libsodium-dev libdbus-1-dev libsystemd-dev dbus python3-dbus libglib2.0-bin systemd binutils \
               libpam0g-dev libpam-wrapper pamtester python3-pypamtest man-db groff-base \
               python3-gi python3-dbusmock libxml2-utils \
               fprintd libfprint-2-2 gettext \
               gir1.2-gtk-4.0 gir1.2-adw-1 xvfb at-spi2-core gir1.2-atspi-2.0 imagemagick xdotool desktop-file-utils \
               openssl python3-cryptography \
               libssl-dev libtss2-dev swtpm swtpm-tools valgrind
# …and what `make deb` needs besides.
DEB_PACKAGES = dpkg-dev debhelper lintian fakeroot

# Installation layout (`make install PREFIX=/usr DESTDIR=…`; the Debian package uses PREFIX=/usr).
# Directories the system reads come from pkg-config when PREFIX=/usr; with another PREFIX they are
# the places systemd, dbus and bash-completion search for locally installed software.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
LIBEXECDIR  ?= $(PREFIX)/libexec
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
DOCDIR      ?= $(DATADIR)/doc/localauthd
# The daemon reads /etc/localauthd/localauthd.conf whatever PREFIX is.
CONFDIR     ?= /etc/localauthd
pkgvar       = $(shell pkg-config --variable=$(1) $(2) 2>/dev/null)
ifeq ($(PREFIX),/usr)
UNITDIR     ?= $(or $(call pkgvar,systemdsystemunitdir,systemd),/lib/systemd/system)
DBUSSERVICEDIR ?= $(or $(call pkgvar,system_bus_services_dir,dbus-1),$(DATADIR)/dbus-1/system-services)
DBUSPOLICYDIR  ?= $(or $(call pkgvar,datadir,dbus-1),$(DATADIR))/dbus-1/system.d
DBUSINTERFACEDIR ?= $(or $(call pkgvar,interfaces_dir,dbus-1),$(DATADIR)/dbus-1/interfaces)
BASHCOMPDIR ?= $(or $(call pkgvar,completionsdir,bash-completion),$(DATADIR)/bash-completion/completions)
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
else
# systemd searches /usr/local/lib/systemd/system and dbus /usr/local/share/dbus-1/system-services,
UNITDIR     ?= $(PREFIX)/lib/systemd/system
DBUSSERVICEDIR ?= $(DATADIR)/dbus-1/system-services
# but dbus reads bus policies only from /usr/share/dbus-1/system.d and /etc/dbus-1/system.d (the
# administrator's directory): a locally installed policy goes to the latter.
DBUSPOLICYDIR  ?= /etc/dbus-1/system.d
DBUSINTERFACEDIR ?= $(DATADIR)/dbus-1/interfaces
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/site-functions
endif
# polkit reads actions from /usr/share/polkit-1/actions only, whatever PREFIX is.
POLKITACTIONDIR ?= $(or $(call pkgvar,actiondir,polkit-gobject-1),/usr/share/polkit-1/actions)
# …and packaged rules from /usr/share/polkit-1/rules.d (administrators' from /etc/polkit-1/rules.d).
POLKITRULESDIR ?= /usr/share/polkit-1/rules.d
# systemd-sysusers reads $(PREFIX)/lib/sysusers.d for /usr and /usr/local.
SYSUSERSDIR ?= $(if $(filter /usr,$(PREFIX)),$(or $(call pkgvar,sysusersdir,systemd),/usr/lib/sysusers.d),$(PREFIX)/lib/sysusers.d)
# Provider descriptors shipped with the package (localauthd also reads /etc/localauthd/providers).
PROVIDERDIR ?= $(PREFIX)/lib/localauthd/providers
# `make install` strips; debian/rules passes STRIP= so that dh_strip keeps the symbols in -dbgsym.
STRIP       ?= -s
# Release build: optimized for speed (-O: 10 % fewer instructions per evaluation cycle than -Osize;
# with the code order below, -Osize saved only 0.1-0.4 MiB resident) and across modules
# (-cross-module-optimization: the daemon's modules inline and specialize each other's code, 1.3 %
# fewer instructions a cycle); the Swift runtime, libstdc++
# and libdbus static (so the binaries need only libc, libm,
# libgcc_s and libsodium, plus libcrypto and tpm2-tss in localauthd and libpam in localauth), full RELRO, and lld's packed relative relocations (DT_RELR,
# glibc >= 2.36): the static runtime's ~30 000 relocations take 6 KB instead of 700 KB, all read at
# start. The runtime's link arguments ask for -lstdc++; STATIC_CXX_DIR holds only libstdc++.a and
# is searched before gcc's directory, so that request takes the archive. They also export every
# symbol of our own modules (-export-dynamic); nothing looks them up, and --no-export-dynamic keeps
# their 260 KB dynamic symbol table, which the dynamic linker reads at start, out of the binaries.
# libdbus is linked statically too: Debian's libdbus-1.so.3 needs libsystemd.so.0, which loads
# libgcrypt, libgpg-error, libzstd, liblzma, liblz4 and libcap (0.8 MB resident at idle, for two
# functions only a socket-activated bus daemon uses; link/sd-daemon-stubs.c). RELEASE_LIBS_DIR holds
# the pkg-config files SwiftPM reads first and the one directory they name: libdbus-1.a, the stubs,
# and libsodium.so (still shared; named there so that no directory holding libdbus-1.so comes first).
STATIC_CXX_DIR = $(CURDIR)/.build/static-libstdc++
RELEASE_LIBS_DIR = $(CURDIR)/.build/release-libs
# Each function in a section of its own, and the ones the daemon runs laid side by side in the order
# file bench/symbol-order.py writes (`make symbol-order`): the kernel maps code in 64 KiB windows
# around each page first run, so spread-out code made most of .text resident (1.7 MiB less at idle).
SYMBOL_ORDER = $(CURDIR)/link/localauthd.symbol-order
# Concrete generic types (Dictionary<String, …>, Result<…, RightVaultError>) are reached through
# their metadata accessors instead of by demangling their names at run time: for each demangled
# type the runtime checks the generic requirements by scanning all ~2 600 conformance records of
# the static binary, which made up a third of the daemon's start-up (`make bench`, BENCHMARKS.md).
RELEASE_FLAGS = -c release -Xswiftc -O -Xswiftc -cross-module-optimization --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
                -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
                -Xlinker --symbol-ordering-file=$(SYMBOL_ORDER) -Xlinker --no-warn-symbol-ordering \
                -Xlinker --no-export-dynamic -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker -L$(STATIC_CXX_DIR) \
                --pkg-config-path $(RELEASE_LIBS_DIR)

# What `make install` puts in place, relative to DESTDIR (`make uninstall` removes exactly these).
# localauth-agent-gtk.1 goes with the desktop agent (install-agent-gtk), not with the daemon.
MANPAGES     = $(filter-out man/localauth-agent-gtk.1,$(wildcard man/*.1 man/*.5 man/*.8))
INSTALLED    = $(BINDIR)/localauth $(LIBEXECDIR)/localauthd $(UNITDIR)/localauthd.service \
               $(DBUSSERVICEDIR)/org.localauth.LocalAuthentication1.service \
               $(DBUSPOLICYDIR)/org.localauth.LocalAuthentication1.conf \
               $(patsubst dbus/%,$(DBUSINTERFACEDIR)/%,$(wildcard dbus/*.xml)) \
               $(DOCDIR)/localauthd.conf.sample $(DOCDIR)/README.md $(patsubst docs/%,$(DOCDIR)/docs/%,$(wildcard docs/*.md)) \
               $(foreach page,$(MANPAGES),$(MANDIR)/man$(subst .,,$(suffix $(page)))/$(notdir $(page))) \
               $(if $(wildcard completion/localauth.bash),$(BASHCOMPDIR)/localauth) \
               $(if $(wildcard completion/_localauth),$(ZSHCOMPDIR)/_localauth) \
               $(patsubst polkit/%,$(POLKITACTIONDIR)/%,$(wildcard polkit/*.policy)) \
               $(foreach lang,$(LANGUAGES),$(LOCALEDIR)/$(lang)/LC_MESSAGES/localauthd.mo)
# The translations of the agents' sentences (po/LANG.po): msgfmt writes .build/locale/LANG/LC_MESSAGES/
# localauthd.mo, where a daemon run from the build tree reads them; installed under LOCALEDIR, which
# the daemon finds from its own path (PREFIX/libexec/localauthd -> PREFIX/share/locale).
LANGUAGES    = $(basename $(notdir $(wildcard po/*.po)))
LOCALEDIR   ?= $(DATADIR)/locale
LOCALE_FILES = $(foreach lang,$(LANGUAGES),.build/locale/$(lang)/LC_MESSAGES/localauthd.mo)

# Install/uninstall targets of the other parts (the PAM module, the fprintd provider), one line each.
INSTALL_HOOKS   = install-pam install-fprintd-provider
UNINSTALL_HOOKS = uninstall-pam uninstall-fprintd-provider
# What install-fprintd-provider puts in place (providers/fprintd/), relative to DESTDIR.
FPRINTD_PROVIDER_FILES = $(LIBEXECDIR)/localauth-fprintd-provider $(UNITDIR)/localauth-fprintd-provider.service \
               $(DBUSSERVICEDIR)/org.localauth.Provider.Fprintd.service $(DBUSPOLICYDIR)/org.localauth.Provider.Fprintd.conf \
               $(PROVIDERDIR)/fprintd.provider $(POLKITRULESDIR)/50-localauth-fprintd.rules $(SYSUSERSDIR)/localauth-fprintd.conf

# PAM loads modules from its own multiarch directory only, whatever PREFIX is.
PAMDIR      ?= $(or $(patsubst %,%/security,$(call pkgvar,libdir,pam)),/lib/$(or $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null),x86_64-linux-gnu)/security)
PAMCONFIGDIR ?= /usr/share/pam-configs
# The service that checks the login password handed to the keyring (pam/localauth-keyring); /etc/pam.d whatever PREFIX is.
PAMSERVICEDIR ?= /etc/pam.d
PAM_MODULE   = .build/pam/pam_localauth.so
# The tests' stand-in for su/sudo run by another uid (real uid set, effective uid root).
PAM_APPLICANT_DRIVER = .build/pam/pam-as-applicant
# The tests' stand-in for pam_gnome_keyring: records the PAM_AUTHTOK it is handed.
PAM_AUTHTOK_PROBE = .build/pam/pam_authtok_probe.so
PAM_CFLAGS   = -O2 -g -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wall -Wextra -Werror -fPIC $(shell pkg-config --cflags dbus-1 libsystemd pam)
# nodelete: libdbus keeps per-library caches that are lost if pam_end unloads it; stay loaded instead.
PAM_LDFLAGS  = -shared -Wl,--version-script=pam/pam_localauth.map -Wl,-z,relro,-z,now,-z,nodelete -Wl,--no-undefined
PAM_LIBS     = $(shell pkg-config --libs dbus-1 libsystemd pam)

.PHONY: all deps build pam locale release test demo bench symbol-order stress install uninstall install-check install-pam uninstall-pam install-fprintd-provider uninstall-fprintd-provider deb clean help man completion

all: build

help:
	@echo "make demo   install what is missing, build, walk through the localauth CLI on a private bus"
	@echo "make test   install what is missing, build, run every test"
	@echo "make bench  release build; measure latency, throughput, memory, start-up; update BENCHMARKS.md"
	@echo "make symbol-order  regenerate link/localauthd.symbol-order, the release link's code order (valgrind)"
	@echo "make stress the reliability suite, bigger (LOCALAUTH_STRESS=1; see README)"
	@echo "make build  build ($(CONFIG))"
	@echo "make pam    build the PAM module $(PAM_MODULE)"
	@echo "make locale compile the translations po/*.po to .build/locale (msgfmt)"
	@echo "make man    regenerate man/localauth.1, completion/localauth.bash and pam/localauth-api.h from the command table and the contract,"
	@echo "            and config/localauthd.conf and localauthd.conf(5)'s settings from the settings table"
	@echo "make deb    the Debian package in .build/deb (dpkg-buildpackage), checked, lintian"
	@echo "make install [PREFIX=/usr/local] [DESTDIR=…]   release build (static Swift runtime), stripped"
	@echo "make uninstall [PREFIX=/usr/local] [DESTDIR=…]"
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

build: deps locale
	$(SWIFT) build -c $(CONFIG)

## The translations, checked (msgfmt --check: headers and c-format placeholders) and compiled.
locale: $(LOCALE_FILES)

.build/locale/%/LC_MESSAGES/localauthd.mo: po/%.po
	@mkdir -p $(@D)
	msgfmt --check -o $@ $<

## The PAM module (C, no runtime; exports only pam_sm_*). LocalAuthPAMTests load it from here.
pam: $(PAM_MODULE) $(PAM_APPLICANT_DRIVER) $(PAM_AUTHTOK_PROBE)

$(PAM_MODULE): pam/pam_localauth.c pam/localauth-api.h pam/pam_localauth.map
	@mkdir -p $(@D)
	$(CC) $(PAM_CFLAGS) $(PAM_LDFLAGS) -o $@ pam/pam_localauth.c $(PAM_LIBS)

$(PAM_APPLICANT_DRIVER): pam/tests/pam-as-applicant.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ pam/tests/pam-as-applicant.c -lpam

$(PAM_AUTHTOK_PROBE): pam/tests/pam_authtok_probe.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -Werror -fPIC -shared -o $@ pam/tests/pam_authtok_probe.c -lpam

## At most TEST_WIDTH tests at once: unbounded, Swift Testing starts every suite together, and a
## hundred daemons, fprintd instances and python clients starting at once on 2 cores made
## time-bounded tests (flood, sensor sharing, fprintd) miss their bounds. 8 is also faster here.
TEST_WIDTH ?= 8
test: deps pam locale
	$(SWIFT) build --build-tests
	@# TSS2_LOG: tpm2-tss in the vault tests' own process stays quiet, as localauthd keeps it.
	TSS2_LOG=all+NONE SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) SWIFT=$(SWIFT) scripts/run-tests.sh
	$(MAKE) --no-print-directory install-check

demo: deps locale
	$(SWIFT) build --product localauthd
	$(SWIFT) build --product localauth
	BIN=$$($(SWIFT) build --show-bin-path) scripts/demo.sh

## Release build, linked with the Swift runtime, Foundation, libstdc++ and libdbus statically: at run
## time the binaries need only Debian's libc, libm, libgcc_s and libsodium (and libcrypto, tpm2-tss, libpam).
release: $(STATIC_CXX_DIR)/libstdc++.a $(RELEASE_LIBS_DIR)/dbus-1.pc
	$(SWIFT) build $(RELEASE_FLAGS) --product localauthd
	$(SWIFT) build $(RELEASE_FLAGS) --product localauth
	$(SWIFT) build $(RELEASE_FLAGS) --product localauth-fprintd-provider

$(STATIC_CXX_DIR)/libstdc++.a:
	@archive="$$($(CC) -print-file-name=libstdc++.a)"; \
	case "$$archive" in /*) ;; *) echo "libstdc++.a not found: install libstdc++-12-dev (g++)" >&2; exit 1;; esac; \
	mkdir -p "$(@D)" && ln -sf "$$archive" "$@"

$(RELEASE_LIBS_DIR)/dbus-1.pc: link/sd-daemon-stubs.c
	@dbus=$$(pkg-config --variable=libdir dbus-1)/libdbus-1.a; sodium=$$(pkg-config --variable=libdir libsodium)/libsodium.so; \
	[ -e "$$dbus" ] && [ -e "$$sodium" ] || { echo "$$dbus or $$sodium missing: install libdbus-1-dev and libsodium-dev" >&2; exit 1; }; \
	mkdir -p "$(@D)" && ln -sf "$$dbus" "$(@D)/libdbus-1.a" && ln -sf "$$sodium" "$(@D)/libsodium.so"
	$(CC) -O2 -Wall -Wextra -Werror -fPIC -c link/sd-daemon-stubs.c -o "$(@D)/sd-daemon-stubs.o"
	rm -f "$(@D)/libsd-daemon-stubs.a" && ar rcs "$(@D)/libsd-daemon-stubs.a" "$(@D)/sd-daemon-stubs.o"
	printf 'Name: libsodium\nDescription: libsodium, shared\nVersion: %s\nLibs: -L%s -lsodium\nCflags: %s\n' \
	  "$$(pkg-config --modversion libsodium)" "$(@D)" "$$(pkg-config --cflags libsodium)" > "$(@D)/libsodium.pc"
	printf 'Name: dbus\nDescription: libdbus-1, static, without libsystemd\nVersion: %s\nLibs: -L%s -ldbus-1 -lsd-daemon-stubs\nCflags: %s\n' \
	  "$$(pkg-config --modversion dbus-1)" "$(@D)" "$$(pkg-config --cflags dbus-1)" > "$@"

## No apt-get here: build with `make build` or `make release` first if packages are missing.
install: release locale $(INSTALL_HOOKS)
	bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)" && \
	install -D -m 0755 $(STRIP) "$$bin/localauth" "$(DESTDIR)$(BINDIR)/localauth" && \
	install -D -m 0755 $(STRIP) "$$bin/localauthd" "$(DESTDIR)$(LIBEXECDIR)/localauthd"
	install -d -m 0755 "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(DBUSSERVICEDIR)" "$(DESTDIR)$(DBUSINTERFACEDIR)" "$(DESTDIR)$(DBUSPOLICYDIR)"
	sed 's|/usr/libexec/localauthd|$(LIBEXECDIR)/localauthd|' systemd/localauthd.service > "$(DESTDIR)$(UNITDIR)/localauthd.service"
	sed 's|/usr/libexec/localauthd|$(LIBEXECDIR)/localauthd|' dbus/org.localauth.LocalAuthentication1.service > "$(DESTDIR)$(DBUSSERVICEDIR)/org.localauth.LocalAuthentication1.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/localauthd.service" "$(DESTDIR)$(DBUSSERVICEDIR)/org.localauth.LocalAuthentication1.service"
	install -m 0644 dbus/org.localauth.LocalAuthentication1.conf "$(DESTDIR)$(DBUSPOLICYDIR)/"
	install -m 0644 dbus/*.xml "$(DESTDIR)$(DBUSINTERFACEDIR)/"
	install -D -m 0644 config/localauthd.conf "$(DESTDIR)$(DOCDIR)/localauthd.conf.sample"
	install -D -m 0644 README.md "$(DESTDIR)$(DOCDIR)/README.md"
	@# The README links docs/ (architecture, contract, configuration, providers, …) relative to itself.
	install -D -m 0644 -t "$(DESTDIR)$(DOCDIR)/docs" docs/*.md
	@# The configuration is the administrator's: installed when absent, never overwritten.
	@if [ -e "$(DESTDIR)$(CONFDIR)/localauthd.conf" ]; then \
	  echo "kept $(DESTDIR)$(CONFDIR)/localauthd.conf; this version's defaults: $(DOCDIR)/localauthd.conf.sample"; \
	else install -D -m 0644 config/localauthd.conf "$(DESTDIR)$(CONFDIR)/localauthd.conf"; fi
	for page in $(MANPAGES); do install -D -m 0644 "$$page" "$(DESTDIR)$(MANDIR)/man$${page##*.}/$${page##*/}" || exit; done
	$(if $(wildcard completion/localauth.bash),install -D -m 0644 completion/localauth.bash "$(DESTDIR)$(BASHCOMPDIR)/localauth")
	$(if $(wildcard completion/_localauth),install -D -m 0644 completion/_localauth "$(DESTDIR)$(ZSHCOMPDIR)/_localauth")
	$(if $(wildcard polkit/*.policy),install -D -m 0644 -t "$(DESTDIR)$(POLKITACTIONDIR)" $(wildcard polkit/*.policy))
	for lang in $(LANGUAGES); do install -D -m 0644 ".build/locale/$$lang/LC_MESSAGES/localauthd.mo" "$(DESTDIR)$(LOCALEDIR)/$$lang/LC_MESSAGES/localauthd.mo" || exit; done
	@echo "installed under $(DESTDIR)$(PREFIX); the bus starts $(LIBEXECDIR)/localauthd on demand (after systemctl daemon-reload; dbus reloads its policy itself)"

## Removes what `make install` put in place; the configuration only while it is the unedited one.
uninstall: $(UNINSTALL_HOOKS)
	rm -f $(foreach file,$(INSTALLED),"$(DESTDIR)$(file)")
	@if cmp -s config/localauthd.conf "$(DESTDIR)$(CONFDIR)/localauthd.conf"; then rm -f "$(DESTDIR)$(CONFDIR)/localauthd.conf"; \
	elif [ -e "$(DESTDIR)$(CONFDIR)/localauthd.conf" ]; then echo "kept $(DESTDIR)$(CONFDIR)/localauthd.conf (edited)"; fi
	@rmdir "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(CONFDIR)" 2>/dev/null || true

## The PAM module, its pam-auth-update profile (not enabled: `pam-auth-update --enable localauth`)
## and the localauth-keyring service that checks the login password handed to the keyring (an
## administrator's edited copy is kept, like localauthd.conf).
install-pam: pam
	install -D -m 0644 $(PAM_MODULE) "$(DESTDIR)$(PAMDIR)/pam_localauth.so"
	install -D -m 0644 pam/localauth.pam-config "$(DESTDIR)$(PAMCONFIGDIR)/localauth"
	@if [ -e "$(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring" ] && ! cmp -s pam/localauth-keyring "$(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring"; then \
	  echo "kept $(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring (edited)"; \
	else install -D -m 0644 pam/localauth-keyring "$(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring"; fi

uninstall-pam:
	rm -f "$(DESTDIR)$(PAMDIR)/pam_localauth.so" "$(DESTDIR)$(PAMCONFIGDIR)/localauth"
	@if cmp -s pam/localauth-keyring "$(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring"; then rm -f "$(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring"; \
	elif [ -e "$(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring" ]; then echo "kept $(DESTDIR)$(PAMSERVICEDIR)/localauth-keyring (edited)"; fi

## The fprintd provider (providers/fprintd/): binary, units, bus policy, descriptor, polkit rule and
## its system user. Not enabled: add `fprintd` to `backends` in localauthd.conf (README).
install-fprintd-provider: release
	install -D -m 0755 $(STRIP) "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/localauth-fprintd-provider" "$(DESTDIR)$(LIBEXECDIR)/localauth-fprintd-provider"
	install -d -m 0755 "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)$(DBUSSERVICEDIR)" "$(DESTDIR)$(DBUSPOLICYDIR)" "$(DESTDIR)$(PROVIDERDIR)" "$(DESTDIR)$(POLKITRULESDIR)" "$(DESTDIR)$(SYSUSERSDIR)"
	sed 's|/usr/libexec/localauth-fprintd-provider|$(LIBEXECDIR)/localauth-fprintd-provider|' providers/fprintd/localauth-fprintd-provider.service > "$(DESTDIR)$(UNITDIR)/localauth-fprintd-provider.service"
	sed 's|/usr/libexec/localauth-fprintd-provider|$(LIBEXECDIR)/localauth-fprintd-provider|' providers/fprintd/org.localauth.Provider.Fprintd.service > "$(DESTDIR)$(DBUSSERVICEDIR)/org.localauth.Provider.Fprintd.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/localauth-fprintd-provider.service" "$(DESTDIR)$(DBUSSERVICEDIR)/org.localauth.Provider.Fprintd.service"
	install -m 0644 providers/fprintd/org.localauth.Provider.Fprintd.conf "$(DESTDIR)$(DBUSPOLICYDIR)/"
	install -m 0644 providers/fprintd/fprintd.provider "$(DESTDIR)$(PROVIDERDIR)/"
	install -m 0644 providers/fprintd/50-localauth-fprintd.rules "$(DESTDIR)$(POLKITRULESDIR)/"
	install -m 0644 providers/fprintd/localauth-fprintd.sysusers "$(DESTDIR)$(SYSUSERSDIR)/localauth-fprintd.conf"
	@echo "fprintd provider installed; create its user with systemd-sysusers, then add fprintd to backends in $(CONFDIR)/localauthd.conf"

uninstall-fprintd-provider:
	rm -f $(foreach file,$(FPRINTD_PROVIDER_FILES),"$(DESTDIR)$(file)")
	@rmdir -p "$(DESTDIR)$(PROVIDERDIR)" 2>/dev/null || true

## The desktop agent (agent-gtk/, Python + GTK 4): its catalogues compiled to .build/agent-gtk/locale,
## installed with the script, its XDG autostart entry and its man page (the localauth-agent-gtk
## package; not part of `make install`). Desktops read autostart entries from /etc/xdg/autostart
## whatever PREFIX is.
AUTOSTARTDIR ?= /etc/xdg/autostart
AGENT_GTK_LANGUAGES = $(basename $(notdir $(wildcard agent-gtk/po/*.po)))
AGENT_GTK_LOCALE = $(foreach lang,$(AGENT_GTK_LANGUAGES),.build/agent-gtk/locale/$(lang)/LC_MESSAGES/localauth-agent-gtk.mo)
AGENT_GTK_FILES = $(LIBEXECDIR)/localauth-agent-gtk $(AUTOSTARTDIR)/localauth-agent-gtk.desktop $(MANDIR)/man1/localauth-agent-gtk.1 \
               $(foreach lang,$(AGENT_GTK_LANGUAGES),$(LOCALEDIR)/$(lang)/LC_MESSAGES/localauth-agent-gtk.mo)
.PHONY: agent-gtk install-agent-gtk uninstall-agent-gtk

agent-gtk: $(AGENT_GTK_LOCALE)

.build/agent-gtk/locale/%/LC_MESSAGES/localauth-agent-gtk.mo: agent-gtk/po/%.po
	@mkdir -p $(@D)
	msgfmt --check -o $@ $<

install-agent-gtk: agent-gtk
	install -D -m 0755 agent-gtk/localauth-agent-gtk "$(DESTDIR)$(LIBEXECDIR)/localauth-agent-gtk"
	install -d -m 0755 "$(DESTDIR)$(AUTOSTARTDIR)"
	sed 's|^Exec=/usr/libexec/localauth-agent-gtk|Exec=$(LIBEXECDIR)/localauth-agent-gtk|' agent-gtk/localauth-agent-gtk.desktop > "$(DESTDIR)$(AUTOSTARTDIR)/localauth-agent-gtk.desktop"
	chmod 0644 "$(DESTDIR)$(AUTOSTARTDIR)/localauth-agent-gtk.desktop"
	install -D -m 0644 man/localauth-agent-gtk.1 "$(DESTDIR)$(MANDIR)/man1/localauth-agent-gtk.1"
	for lang in $(AGENT_GTK_LANGUAGES); do install -D -m 0644 ".build/agent-gtk/locale/$$lang/LC_MESSAGES/localauth-agent-gtk.mo" "$(DESTDIR)$(LOCALEDIR)/$$lang/LC_MESSAGES/localauth-agent-gtk.mo" || exit; done

uninstall-agent-gtk:
	rm -f $(foreach file,$(AGENT_GTK_FILES),"$(DESTDIR)$(file)")

## Installs into a temporary DESTDIR (PREFIX=/usr) and checks the tree, the binaries' links, the
## unit, and that the installed daemon serves the installed CLI on a private bus.
install-check:
	scripts/check-install.sh --destdir

## The Debian package: .build/deb/localauthd_VERSION_ARCH.deb, checked like install-check and by lintian.
deb:
	$(MAKE) deps APT_PACKAGES="$(APT_PACKAGES) $(DEB_PACKAGES)"
	scripts/check-install.sh --deb

## man/localauth.1 and completion/localauth.bash come from the CLI's command table, pam/localauth-api.h
## and the desktop agent's constants block from the contract's declarations; a test in
## `make test` fails when the committed files differ from what the CLI generates. The sample
## configuration and localauthd.conf(5)'s settings sections come from the settings table
## (ConfigurationSetting.all), rewritten by ConfigurationSettingTests when asked to.
man completion:
	$(SWIFT) build --product localauth
	"$$($(SWIFT) build --show-bin-path)/localauth" --help-man > man/localauth.1
	"$$($(SWIFT) build --show-bin-path)/localauth" completion bash > completion/localauth.bash
	"$$($(SWIFT) build --show-bin-path)/localauth" --help-c-header > pam/localauth-api.h
	"$$($(SWIFT) build --show-bin-path)/localauth" --help-python-api | /usr/bin/python3 -c 'import sys; path = "agent-gtk/localauth-agent-gtk"; \
	  text = open(path).read(); block = sys.stdin.read().rstrip("\n") + "\n"; start = text.index(block.splitlines()[0]); end = text.index("# END localauth API\n") + 20; \
	  open(path, "w").write(text[:start] + block + text[end:])'
	LOCALAUTH_WRITE_CONFIGURATION_DOCS=1 $(SWIFT) test --filter ConfigurationSettingTests

## The release daemon as `make release` links it (static Swift runtime; copied aside, since the
## harness needs Swift Testing and so the dynamic runtime), the harness, the C libdbus floors (a
## one-call echo service and a no-work service for the four calls of an evaluation cycle), then
## the measurements; bench/critical-path.c is preloaded into the daemon and the cycle floor to time
## each call from the read to the reply.
bench: deps $(STATIC_CXX_DIR)/libstdc++.a $(RELEASE_LIBS_DIR)/dbus-1.pc
	$(SWIFT) build $(RELEASE_FLAGS) --product localauthd
	mkdir -p .build
	cp "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/localauthd" .build/bench-localauthd
	$(SWIFT) build -c release --product localauth-bench
	cc -O2 -Wall -o .build/bench-echo bench/echo-service.c $$(pkg-config --cflags --libs dbus-1)
	cc -O2 -Wall -o .build/bench-cycle-floor bench/cycle-floor.c $$(pkg-config --cflags --libs dbus-1)
	$$($(SWIFT) build -c release --show-bin-path)/localauth-bench --daemon .build/bench-localauthd \
	  --echo .build/bench-echo --floor .build/bench-cycle-floor --json bench/results.json --markdown BENCHMARKS.md \
	  --idle-seconds 60 --churn-contexts 100000 --callgrind
	cc -O2 -Wall -shared -fPIC -o .build/critical-path.so bench/critical-path.c -ldl
	/usr/bin/python3 bench/critical-path.py .build/bench-localauthd .build/bench-cycle-floor \
	  --json bench/critical-path.json --markdown BENCHMARKS.md
	$(SWIFT) build -c release --product localauth-provider-bench
	$$($(SWIFT) build -c release --show-bin-path)/localauth-provider-bench --json bench/provider-results.json
	$(SWIFT) build -c release --product localauth-fprintd-provider
	/usr/bin/python3 bench/fprintd-bench.py --bin $$($(SWIFT) build -c release --show-bin-path) --json bench/fprintd-results.json

## Regenerates link/localauthd.symbol-order from the release daemon's run (see bench/symbol-order.py).
symbol-order: deps $(STATIC_CXX_DIR)/libstdc++.a $(RELEASE_LIBS_DIR)/dbus-1.pc
	[ -e $(SYMBOL_ORDER) ] || : > $(SYMBOL_ORDER)
	$(SWIFT) build $(RELEASE_FLAGS) --product localauthd
	/usr/bin/python3 bench/symbol-order.py "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/localauthd" --out $(SYMBOL_ORDER)
	@# The order file is not an input SwiftPM tracks: the next release build relinks because the binary is gone.
	rm -f "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/localauthd"

## The reliability suite with stress-sized rounds (override any LOCALAUTH_* count on the command line).
stress: deps
	$(SWIFT) build --build-tests
	LOCALAUTH_STRESS=1 $(SWIFT) test --skip-build --filter LocalAuthReliabilityTests

clean:
	rm -rf .build
