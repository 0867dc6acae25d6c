#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The first five minutes on a bare Debian 12, for real (make test-clean-root; root; slow: it
# downloads and installs a few hundred MB of packages, so it is not part of make check).
#
# Roots are made with mmdebstrap (Debian's package; --variant=minbase: the Essential and
# Required packages only, no compiler) from the bookworm, bookworm-updates and
# bookworm-security suites of deb.debian.org, plus `make`, the command the user types (it is
# not in a minbase root, nor in debootstrap's default one). The root is bound onto itself (a
# mount point, as / is on a machine), and the chroot gets /proc, and /sys and
# /dev bound recursively (so /sys/kernel/btf, /sys/fs/bpf and tracefs are there for BPF), as
# slaves so that nothing unmounted in the root leaves the host. The host's local CA
# certificates (/usr/local/share/ca-certificates) are copied in, for networks that intercept
# TLS (npm fetches the JSON schema packages over https).
#
#   1. root A: a clean clone of this repository's HEAD in /root/cpuprof; `make demo` as the
#      only command, timed; demo-profile.html and .folded must exist.
#   2. root A: `make deb` (the package, built in the clean root).
#   3. root B (minbase, no compiler): `apt-get install ./cpuprof_*.deb`, then `cpuprof check`
#      and `cpuprof record -d 1s`, which must write a non-empty profile.
#   4. root A: `make check` (unless CLEAN_ROOT_CHECK=0), timed, its result reported.
# Logs and figures go to WORKDIR (default: a new directory under /var/tmp); the roots are
# removed at the end of a run that got there, unless CLEAN_ROOT_KEEP=1.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
work=${1:-}
extra_ca=""

die() {
	echo "test-clean-root: $*" >&2
	exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap, chroot, BPF)"
"$repo/scripts/install-deps.sh" mmdebstrap
[ -n "$work" ] || work=$(mktemp -d /var/tmp/cpuprof-clean-root.XXXXXX)
mkdir -p "$work"
log=$work/times.txt
: >"$log"

mounted=""
cleanup() {
	for r in $mounted; do
		for m in dev sys proc; do
			umount -R "$r/$m" 2>/dev/null || umount -lR "$r/$m" 2>/dev/null || true
		done
		umount "$r" 2>/dev/null || umount -l "$r" 2>/dev/null || true
	done
}
trap cleanup EXIT INT TERM

note() { echo "test-clean-root: $*" | tee -a "$log"; }

# make_root DIR [INCLUDE]: a minbase Debian 12 root, ready to chroot into
make_root() {
	start=$(date +%s)
	mmdebstrap --quiet --variant=minbase ${2:+--include="$2"} "$suite" "$1" \
		"deb $mirror $suite main" "deb $mirror $suite-updates main" \
		"deb $security $suite-security main" >"$1.log" 2>&1 ||
		die "mmdebstrap failed: $(tail -5 "$1.log")"
	cp /etc/resolv.conf "$1/etc/resolv.conf"
	# the root a mount point of its own: unshare -m (t_namespace) changes the propagation of
	# "/", which fails with EINVAL when "/" is a plain directory
	mount --bind "$1" "$1"
	mount --make-private "$1"
	mounted="$mounted $1"
	# a network that intercepts TLS (a proxy with its own CA, where npm fails with
	# SELF_SIGNED_CERT_IN_CHAIN): the host's local CAs go along, for update-ca-certificates
	# once ca-certificates is installed, and for node (npm) from the start
	if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
		mkdir -p "$1/usr/local/share/ca-certificates"
		cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"
		cat /usr/local/share/ca-certificates/*.crt >"$1/etc/cpuprof-host-ca.crt"
		extra_ca=/etc/cpuprof-host-ca.crt
	fi
	mount -t proc proc "$1/proc"
	mount --rbind /sys "$1/sys"
	mount --make-rslave "$1/sys"
	mount --rbind /dev "$1/dev"
	mount --make-rslave "$1/dev"
	note "$(basename "$1"): mmdebstrap --variant=minbase ${2:+--include=$2} $suite: $(($(date +%s) - start)) s"
}

# in_root DIR LOGNAME COMMAND: run COMMAND with sh -c in DIR as root's login, timed
in_root() {
	start=$(date +%s)
	rc=0
	chroot "$1" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb \
		${CI:+CI=$CI} ${extra_ca:+NODE_EXTRA_CA_CERTS=$extra_ca} /bin/sh -c "$3" >"$work/$2.log" 2>&1 || rc=$?
	took=$(($(date +%s) - start))
}

a=$work/root-a
b=$work/root-b
rm -rf "$a" "$b"

# ---- root A: make demo, make deb ------------------------------------------------
make_root "$a" make
git clone --quiet "$repo" "$a/root/cpuprof"
note "clean clone of $(git -C "$repo" rev-parse --short HEAD) in root-a:/root/cpuprof"

in_root "$a" demo 'cd /root/cpuprof && make demo'
note "root-a: make demo: exit $rc, $took s (log: $work/demo.log)"
[ "$rc" -eq 0 ] || die "make demo failed: $(tail -15 "$work/demo.log")"
for f in demo-profile.html demo-profile.folded; do
	[ -s "$a/root/cpuprof/$f" ] || die "make demo wrote no $f"
done
grep -q 'demo-profile.html' "$work/demo.log" || die "make demo did not name demo-profile.html"

in_root "$a" deb 'cd /root/cpuprof && make deb'
note "root-a: make deb: exit $rc, $took s"
[ "$rc" -eq 0 ] || die "make deb failed: $(tail -15 "$work/deb.log")"
deb=$(ls "$a"/root/cpuprof/build/cpuprof_*.deb)
cp "$deb" "$work/"

# ---- root B: the .deb on a machine without a compiler ---------------------------------------
make_root "$b"
cp "$deb" "$b/root/"
for cc in gcc cc clang; do
	[ ! -e "$b/usr/bin/$cc" ] || die "root-b has $cc: not a machine without a compiler"
done
in_root "$b" install 'apt-get update -q && apt-get install -y -q --no-install-recommends /root/cpuprof_*.deb'
note "root-b: apt-get install ./$(basename "$deb"): exit $rc, $took s"
[ "$rc" -eq 0 ] || die "apt-get install failed: $(tail -15 "$work/install.log")"

in_root "$b" cpuprof-check 'cpuprof check'
note "root-b: cpuprof check: exit $rc: $(tail -1 "$work/cpuprof-check.log")"
[ "$rc" -eq 0 ] || die "cpuprof check failed: $(cat "$work/cpuprof-check.log")"

in_root "$b" record 'cd /tmp && cpuprof record -d 1s -o /tmp/one.folded && wc -l < /tmp/one.folded'
note "root-b: cpuprof record -d 1s: exit $rc, $took s, $(tail -1 "$work/record.log") stacks"
[ "$rc" -eq 0 ] && [ -s "$b/tmp/one.folded" ] || die "recording failed: $(tail -5 "$work/record.log")"

# ---- root A again: make check (the longest part, last) ----------------------------------
check_rc=skipped
if [ "${CLEAN_ROOT_CHECK:-1}" != 0 ]; then
	in_root "$a" check 'cd /root/cpuprof && make check'
	check_rc=$rc
	note "root-a: make check: exit $rc, $took s (log: $work/check.log)"
	grep -E 'E2E +[0-9]+ passed|FAILED|make check:' "$work/check.log" | tee -a "$log" || true
fi

# the roots take a few GB: gone unless asked to stay (CLEAN_ROOT_KEEP=1), and never while
# anything is still mounted under them
cleanup
mounted=""
if [ "${CLEAN_ROOT_KEEP:-0}" = 0 ]; then
	if grep -qF " $work/root-" /proc/self/mounts; then
		note "mounts are left under $work: the roots stay"
	else
		rm -rf "$a" "$b"
	fi
fi
note "figures in $log"
[ "$check_rc" = skipped ] || [ "$check_rc" -eq 0 ] || die "make check failed in the clean root"
