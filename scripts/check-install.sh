#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks what an administrator gets, file by file:
#   --destdir  `make install PREFIX=/usr DESTDIR=tmp` (then reinstall over an edited configuration
#              and `make uninstall`);
#   --deb      `dpkg-buildpackage -us -uc -b`, the .deb moved to .build/deb, unpacked, lintian.
# Both check the tree against the expected list with modes, that the binaries are stripped and link
# only Debian's libraries (no RUNPATH into the toolchain), `systemd-analyze verify` on the installed
# unit, and that the installed daemon, started by hand on a private bus, answers the installed
# `localauth status`. Never touches the machine's buses or /etc.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/check-install.sh --destdir|--deb}
MAKE=${MAKE:-make}
work=$(mktemp -d /tmp/localauthd-install.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
root=$work/root
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
step() { echo "== $*"; }

unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || true)
unitdir=${unitdir:-/lib/systemd/system}
sysusersdir=$(pkg-config --variable=sysusersdir systemd 2>/dev/null || true)
sysusersdir=${sysusersdir:-/usr/lib/sysusers.d}
pamdir=$(pkg-config --variable=libdir pam 2>/dev/null || true)
pamdir=${pamdir:-/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)}/security

# MODE PATH (relative to the root) of everything `make install PREFIX=/usr` puts in place.
expected_files() {
    cat <<EOF
0755 usr/bin/localauth
0755 usr/libexec/localauthd
0644 ${unitdir#/}/localauthd.service
0644 usr/share/dbus-1/system-services/org.localauth.LocalAuthentication1.service
0644 usr/share/dbus-1/system.d/org.localauth.LocalAuthentication1.conf
0644 etc/localauthd/localauthd.conf
0644 usr/share/doc/localauthd/localauthd.conf.sample
0644 usr/share/doc/localauthd/README.md
EOF
    for file in docs/*.md; do echo "0644 usr/share/doc/localauthd/$file"; done
    for file in dbus/*.xml; do echo "0644 usr/share/dbus-1/interfaces/${file#dbus/}"; done
    # localauth-agent-gtk.1 belongs to the localauth-agent-gtk package (make install-agent-gtk).
    for page in man/*.[158]; do [ -e "$page" ] && [ "$page" != man/localauth-agent-gtk.1 ] && echo "0644 usr/share/man/man${page##*.}/${page##*/}"; done
    [ -e completion/localauth.bash ] && echo "0644 usr/share/bash-completion/completions/localauth"
    [ -e completion/_localauth ] && echo "0644 usr/share/zsh/vendor-completions/_localauth"
    for policy in polkit/*.policy; do [ -e "$policy" ] && echo "0644 usr/share/polkit-1/actions/${policy#polkit/}"; done
    for po in po/*.po; do [ -e "$po" ] && lang=${po#po/} && echo "0644 usr/share/locale/${lang%.po}/LC_MESSAGES/localauthd.mo"; done
    echo "0644 ${pamdir#/}/pam_localauth.so"
    echo "0644 usr/share/pam-configs/localauth"
    echo "0644 etc/pam.d/localauth-keyring"
    cat <<EOF
0755 usr/libexec/localauth-fprintd-provider
0644 ${unitdir#/}/localauth-fprintd-provider.service
0644 usr/share/dbus-1/system-services/org.localauth.Provider.Fprintd.service
0644 usr/share/dbus-1/system.d/org.localauth.Provider.Fprintd.conf
0644 usr/lib/localauthd/providers/fprintd.provider
0644 usr/share/polkit-1/rules.d/50-localauth-fprintd.rules
0644 ${sysusersdir#/}/localauth-fprintd.conf
EOF
}

# The tree under $root must hold exactly the expected files with their modes. In a .deb, dh_compress
# gzips manual pages and large documents, and the package adds its copyright and changelog.
check_tree() {
    local deb=$1 actual expected
    actual=$(cd "$root" && find . ! -type d -printf '%#m %P\n' | sort -k2)
    expected=$(expected_files | while read -r mode path; do
        if [ "$deb" = yes ] && { [[ $path == usr/share/man/* ]] || { [[ $path == usr/share/doc/* ]] && [ -e "$root/$path.gz" ]; }; }; then
            path=$path.gz
        fi
        echo "$mode $path"
    done
    if [ "$deb" = yes ]; then
        echo "0644 usr/share/doc/localauthd/copyright"
        echo "0644 usr/share/doc/localauthd/changelog.gz"
        echo "0644 usr/share/lintian/overrides/localauthd"
        # debian/localauthd.examples: the reference provider and its packaging templates.
        for file in Examples/providers/*; do
            path=usr/share/doc/localauthd/examples/${file##*/}
            echo "$([ -x "$file" ] && echo 0755 || echo 0644) $path$([ -e "$root/$path.gz" ] && echo .gz)"
        done
    fi)
    expected=$(sort -k2 <<<"$expected")
    if [ "$actual" != "$expected" ]; then
        fail "installed tree differs from the expected list (- expected, + installed):"
        diff <(echo "$expected") <(echo "$actual") | grep '^[<>]' | sed 's/^</  -/; s/^>/  +/' >&2 || true
    else
        echo "$actual" | sed 's/^/  /'
    fi
}

check_binaries() {
    local binary
    for binary in "$root/usr/bin/localauth" "$root/usr/libexec/localauthd" "$root/usr/libexec/localauth-fprintd-provider"; do
        if readelf -S "$binary" | grep -q '\.symtab'; then fail "$binary is not stripped"; fi
        if readelf -d "$binary" | grep -E '\((RUNPATH|RPATH)\)' | grep -v '\[\$ORIGIN\]$'; then
            fail "$binary has a library search path besides \$ORIGIN (above)"
        fi
        readelf -d "$binary" | grep -q 'BIND_NOW' && readelf -lW "$binary" | grep -q GNU_RELRO || fail "$binary lacks full RELRO (-z relro -z now)"
        local libraries
        libraries=$(ldd "$binary")
        if grep -E 'not found|/opt/|swift' <<<"$libraries"; then fail "$binary needs libraries from outside the system (above)"; fi
        if grep '=>' <<<"$libraries" | grep -vE '=> /(usr/)?lib/'; then fail "$binary loads a library from outside /lib, /usr/lib (above)"; fi
        printf '  %s: %s bytes\n' "${binary#"$root"}" "$(stat -c %s "$binary")"
    done
}

check_unit() {
    local unit=$root/$unitdir/localauthd.service activation=$root/usr/share/dbus-1/system-services/org.localauth.LocalAuthentication1.service
    grep -qx 'ExecStart=/usr/libexec/localauthd --system --idle-exit 30' "$unit" || fail "ExecStart in $unit: $(grep ExecStart= "$unit")"
    grep -qx 'Exec=/usr/libexec/localauthd --system --idle-exit 30' "$activation" || fail "Exec in $activation: $(grep Exec= "$activation")"
    grep -qx 'SystemdService=localauthd.service' "$activation" || fail "$activation does not name localauthd.service"
    grep -q '^\[Install\]' "$unit" && fail "$unit has an [Install] section; the bus starts it on demand"
    if [ -x /usr/bin/systemd-analyze ]; then
        # verify checks that ExecStart= exists: look at the installed binary, not the host's.
        sed "s|/usr/libexec/localauthd|$root/usr/libexec/localauthd|" "$unit" > "$work/localauthd.service"
        systemd-analyze verify --man=no "$work/localauthd.service" || fail "systemd-analyze verify $unit"
        local exposure
        exposure=$(systemd-analyze security --offline=yes "$work/localauthd.service" | grep 'Overall exposure level') || true
        echo "  $exposure"
        [[ $exposure == *": 0."* || $exposure == *": 1."* ]] || fail "exposure level of the installed unit: $exposure"
    else
        echo "  skipped systemd-analyze: not installed"
    fi
}

# The fprintd provider's unit, D-Bus activation file, descriptor and bus policy as installed.
check_fprintd_provider() {
    local unit=$root/$unitdir/localauth-fprintd-provider.service activation=$root/usr/share/dbus-1/system-services/org.localauth.Provider.Fprintd.service
    grep -qx 'ExecStart=/usr/libexec/localauth-fprintd-provider --system' "$unit" || fail "ExecStart in $unit: $(grep ExecStart= "$unit")"
    grep -qx 'Exec=/usr/libexec/localauth-fprintd-provider --system' "$activation" || fail "Exec in $activation: $(grep Exec= "$activation")"
    grep -qx 'SystemdService=localauth-fprintd-provider.service' "$activation" || fail "$activation does not name localauth-fprintd-provider.service"
    grep -qx 'User=localauth-fprintd' "$root/usr/lib/localauthd/providers/fprintd.provider" || fail "the descriptor does not name the provider's user"
    xmllint --noout "$root/usr/share/dbus-1/system.d/org.localauth.Provider.Fprintd.conf" || fail "the provider's bus policy is not XML"
    if [ -x /usr/bin/systemd-analyze ]; then
        sed "s|/usr/libexec/localauth-fprintd-provider|$root/usr/libexec/localauth-fprintd-provider|" "$unit" > "$work/localauth-fprintd-provider.service"
        local exposure
        exposure=$(systemd-analyze security --offline=yes "$work/localauth-fprintd-provider.service" | grep 'Overall exposure level') || true
        echo "  $exposure"
        [[ $exposure == *": 0."* || $exposure == *": 1."* ]] || fail "exposure level of the fprintd provider's unit: $exposure"
    fi
    "$root/usr/libexec/localauth-fprintd-provider" --help > /dev/null || fail "the installed provider does not run"
}

# The installed daemon with the installed configuration (state in a temp directory) on a private
# bus, asked by the installed client.
check_serves() {
    mkdir -m 0700 "$work/state"
    cat > "$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$work</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
EOF
    exec {busout}< <(exec dbus-daemon --config-file="$work/bus.conf" --nofork --print-address=1 --print-pid=1 2>/dev/null)
    local address pid
    read -r -t 30 address <&$busout && read -r -t 30 pid <&$busout || { fail "dbus-daemon did not start"; return; }
    pids+=("$pid")
    "$root/usr/libexec/localauthd" --address "$address" --config "$root/etc/localauthd/localauthd.conf" \
        --state-dir "$work/state" 2> "$work/daemon.log" &
    pids+=("$!")
    if ! gdbus wait --address "$address" --timeout 30 org.localauth.LocalAuthentication1; then
        fail "the installed daemon did not take its name: $(cat "$work/daemon.log")"
        return
    fi
    local status
    if status=$("$root/usr/bin/localauth" --address "$address" status 2>&1); then
        echo "$status" | sed 's/^/  /'
    else
        fail "installed localauth status: $status"
    fi
}

# Installs, removes and purges the package in a dpkg database of its own under $work/dpkg
# (DPKG_ROOT=that directory for the maintainer scripts, which then leave the host alone).
check_dpkg_cycle() {
    local deb=$1 droot=$work/dpkg left
    mkdir -p "$droot/var/lib/dpkg/info" "$droot/var/lib/dpkg/updates" "$droot/var/lib/dpkg/triggers"
    touch "$droot/var/lib/dpkg/status" "$droot/var/lib/dpkg/available"
    local dpkg=(dpkg --root="$droot" --log=/dev/null --force-script-chrootless --force-depends)
    "${dpkg[@]}" --install "$deb" > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --install"; return; }
    [ -x "$droot/usr/libexec/localauthd" ] || fail "dpkg --install did not install the daemon"
    echo "evaluation_timeout = 30" >> "$droot/etc/localauthd/localauthd.conf"
    mkdir -p -m 0700 "$droot/var/lib/localauthd" && echo state > "$droot/var/lib/localauthd/0"
    "${dpkg[@]}" --remove localauthd > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --remove"; return; }
    left=$(cd "$droot" && find . -path ./var/lib/dpkg -prune -o ! -type d -printf '%P\n' | sort | tr '\n' ' ')
    [ "$left" = "etc/localauthd/localauthd.conf etc/pam.d/localauth-keyring var/lib/localauthd/0 " ] || fail "after remove, left: ${left:-nothing} (expected the configuration files and the state)"
    "${dpkg[@]}" --purge localauthd > "$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg --purge"; return; }
    left=$(cd "$droot" && find . -path ./var/lib/dpkg -prune -o ! -type d -print)
    [ -z "$left" ] || fail "after purge, left: $left"
    [ ! -e "$droot/etc/localauthd" ] && [ ! -e "$droot/var/lib/localauthd" ] || fail "purge left /etc/localauthd or /var/lib/localauthd"
    echo "  install, remove (kept: /etc/localauthd/localauthd.conf, /var/lib/localauthd), purge (nothing left): ok"
}

case $mode in
--destdir)
    step "make install PREFIX=/usr DESTDIR=$root"
    "$MAKE" --no-print-directory install PREFIX=/usr DESTDIR="$root" > "$work/install.log" || { cat "$work/install.log"; exit 1; }
    check_tree no
    step "binaries"; check_binaries
    step "unit"; check_unit
    step "fprintd provider"; check_fprintd_provider
    step "installed daemon answers installed localauth status"; check_serves

    step "reinstall keeps an edited configuration; uninstall removes everything else"
    echo "evaluation_timeout = 30" >> "$root/etc/localauthd/localauthd.conf"
    "$MAKE" --no-print-directory install PREFIX=/usr DESTDIR="$root" > "$work/install.log"
    grep -q '^evaluation_timeout = 30$' "$root/etc/localauthd/localauthd.conf" || fail "reinstall overwrote the edited configuration"
    "$MAKE" --no-print-directory uninstall PREFIX=/usr DESTDIR="$root" > "$work/uninstall.log"
    left=$(cd "$root" && find . ! -type d -printf '%P\n')
    [ "$left" = etc/localauthd/localauthd.conf ] || fail "after uninstall, left: ${left:-nothing} (expected only the edited configuration)"
    rm "$root/etc/localauthd/localauthd.conf"
    "$MAKE" --no-print-directory install PREFIX=/usr DESTDIR="$root" > "$work/install.log"
    "$MAKE" --no-print-directory uninstall PREFIX=/usr DESTDIR="$root" > "$work/uninstall.log"
    left=$(cd "$root" && find . ! -type d -printf '%P\n')
    [ -z "$left" ] || fail "after install and uninstall, left: $left"
    ;;
--deb)
    step "dpkg-buildpackage -us -uc -b"
    out=.build/deb
    version=$(dpkg-parsechangelog -S Version)
    arch=$(dpkg-architecture -qDEB_HOST_ARCH)
    dpkg-buildpackage -us -uc -b
    mkdir -p "$out"
    for file in "localauthd_${version}_$arch.deb" "localauthd-dbgsym_${version}_$arch.deb" \
                "localauthd_${version}_$arch.buildinfo" "localauthd_${version}_$arch.changes" \
                "localauth-agent-gtk_${version}_all.deb"; do
        if [ -e "../$file" ]; then mv "../$file" "$out/"; fi
    done
    debian/rules clean > /dev/null
    deb=$out/localauthd_${version}_$arch.deb
    step "$deb"
    dpkg-deb --info "$deb"
    dpkg-deb -x "$deb" "$root"
    dpkg-deb -e "$deb" "$work/control"
    check_tree yes
    grep -qx /etc/localauthd/localauthd.conf "$work/control/conffiles" || fail "/etc/localauthd/localauthd.conf is not a conffile"
    grep -qx /etc/pam.d/localauth-keyring "$work/control/conffiles" || fail "/etc/pam.d/localauth-keyring is not a conffile"
    grep -qF 'rm -rf "${DPKG_ROOT:-}/var/lib/localauthd" "${DPKG_ROOT:-}/etc/localauthd"' "$work/control/postrm" || fail "postrm does not purge the state"
    grep -q 'daemon-reload' "$work/control/postrm" || fail "postrm does not reload systemd"
    step "binaries"; check_binaries
    step "unit"; check_unit
    step "fprintd provider"; check_fprintd_provider
    step "installed daemon answers installed localauth status"; check_serves
    step "dpkg --root: install, remove keeps the configuration and state, purge removes them"
    check_dpkg_cycle "$deb"
    step "lintian"
    lintian --info --display-info --pedantic "$out/localauthd_${version}_$arch.changes" || fail "lintian"
    ;;
*)
    echo "usage: scripts/check-install.sh --destdir|--deb" >&2; exit 64
    ;;
esac

if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed" >&2; exit 1; fi
echo "all install checks passed"
