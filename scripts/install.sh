#!/bin/sh
# Installs owt without Go: downloads the release archive for this OS and
# architecture, checks it against the release's checksums.txt, and puts
# every program owt needs (owt, owt-popup, owt-mcp) in
# ~/.local/bin — then says what to add when that folder is not on PATH.
#
#   curl -fsSL https://raw.githubusercontent.com/owt-tmux/owt/main/scripts/install.sh | sh
#   sh install.sh [--version vX.Y.Z] [--bin-dir DIR] [--from DIR] [--no-path-check]
#
#   OWT_RELEASE_URL  where owt_VERSION_OS_ARCH.tar.gz and checksums.txt are
#                    (default: the latest release on GitHub; with --version
#                    or OWT_VERSION, that release)
#   PREFIX           install into PREFIX/bin (default: ~/.local)
#   --bin-dir DIR    install into DIR itself (the tmux plugin: its bin/)
#   --from DIR       install the programs already built in DIR instead of
#                    downloading (make install)
#   --no-path-check  do not say whether the folder is on PATH
#   OWT_DOWNLOAD_TIMEOUT  the longest one download may take, in seconds
#                    (default 300); a download is also cut off when it
#                    stalls (under 1 KB/s for 30 s) or grows past its size
#                    (checksums.txt 1 MB, the archive 100 MB)
#
# Nothing is installed unless the archive's sha256 is the one checksums.txt
# lists for it, and the archive holds every program. The programs are
# installed as a set: all copied beside their places first, then renamed
# over them (owt last), so a kill leaves the old set or the new one. It needs sh, tar,
# gzip, curl or wget, and sha256sum or shasum; not Go.
set -eu

PROGRAMS="owt owt-popup owt-mcp"
RELEASES="https://github.com/owt-tmux/owt/releases"

die() {
	echo "owt install: $*" >&2
	exit 1
}

# usage says what was wrong, and how to call it, on one line; exit 2.
usage() {
	echo "owt install: ${1:+$1; }usage: install.sh [--version vX.Y.Z] [--bin-dir DIR] [--from DIR] [--no-path-check]" >&2
	exit 2
}

version="${OWT_VERSION:-}"
bin_dir=""
from=""
path_check=1
while [ $# -gt 0 ]; do
	case "$1" in
	--version | --bin-dir | --from)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case "$1" in
		--version) version="$2" ;;
		--bin-dir) bin_dir="$2" ;;
		--from) from="$2" ;;
		esac
		shift 2
		;;
	--no-path-check)
		path_check=0
		shift
		;;
	-h | --help) usage ;;
	*) usage "unknown argument $1" ;;
	esac
done
if [ -z "$bin_dir" ]; then
	prefix="${PREFIX:-${HOME:?HOME is not set}/.local}"
	bin_dir="${prefix%/}/bin"
fi

timeout_s="${OWT_DOWNLOAD_TIMEOUT:-300}"
case "$timeout_s" in
"" | *[!0-9]* | 0*)
	echo "owt install: OWT_DOWNLOAD_TIMEOUT is a number of seconds (1 or more), not \"$timeout_s\"" >&2
	exit 2
	;;
esac

# fetch downloads URL ($1) into FILE ($2), at most MAX ($3) bytes and
# OWT_DOWNLOAD_TIMEOUT seconds. The body goes through head -c, so a server
# that sends without end fills no disk whatever the tool's own size check
# does; on failure fetch_err says why.
fetch() {
	fetch_err=""
	rm -f "$tmp/fetch.rc"
	if command -v curl >/dev/null 2>&1; then
		{
			rc=0
			curl -fsSL --connect-timeout 10 --max-time "$timeout_s" --speed-limit 1024 --speed-time 30 \
				--max-filesize "$3" --url "$1" || rc=$?
			echo "$rc" >"$tmp/fetch.rc"
		} | head -c "$(($3 + 1))" >"$2"
	elif command -v wget >/dev/null 2>&1; then
		# wget's timeouts are idle ones: timeout bounds the whole download.
		limit=""
		command -v timeout >/dev/null 2>&1 && limit="timeout $timeout_s"
		{
			rc=0
			$limit wget -q --timeout=30 --read-timeout=30 -O - -- "$1" || rc=$?
			echo "$rc" >"$tmp/fetch.rc"
		} | head -c "$(($3 + 1))" >"$2"
	else
		die "neither curl nor wget is installed"
	fi
	if [ "$(wc -c <"$2")" -gt "$3" ]; then
		fetch_err="it is larger than $(($3 / 1048576)) MB"
		return 1
	fi
	case "$(cat "$tmp/fetch.rc" 2>/dev/null)" in
	0) return 0 ;;
	28 | 124) fetch_err="it took longer than $timeout_s s (OWT_DOWNLOAD_TIMEOUT) or stalled" ;;
	63) fetch_err="it is larger than $(($3 / 1048576)) MB" ;;
	esac
	return 1
}

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | awk '{print $1}'
	else
		shasum -a 256 "$1" | awk '{print $1}'
	fi
}

# A folder an install killed outright (kill -9, a reboot) left: its pid,
# in the folder, is gone. The same for the programs' temporary copies.
tmp_root="${TMPDIR:-/tmp}"
for d in "${tmp_root%/}"/owt-install.*; do
	[ -f "$d/pid" ] || continue
	pid="$(cat "$d/pid" 2>/dev/null)"
	case "$pid" in "" | *[!0-9]*) continue ;; esac
	kill -0 "$pid" 2>/dev/null || rm -rf "$d"
done
tmp="$(mktemp -d "${tmp_root%/}/owt-install.XXXXXX" 2>/dev/null || mktemp -d -t owt-install)" ||
	die "cannot make a temporary folder"
echo $$ >"$tmp/pid"
# cleanup removes what this install made and did not put in place.
cleanup() {
	rm -rf "$tmp"
	for p in $PROGRAMS; do
		rm -f "$bin_dir/.$p.new.$$"
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# download fetches and checks the archive for this system, unpacks it into
# $tmp/x and sets from to it.
download() {
	os="$(uname -s | tr '[:upper:]' '[:lower:]')"
	case "$os" in
	linux | darwin) ;;
	*) die "no release archive for $(uname -s): build from source (docs/install.md)" ;;
	esac
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) die "no release archive for $(uname -m): build from source (docs/install.md)" ;;
	esac
	command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 ||
		die "neither sha256sum nor shasum is installed: cannot check the archive"
	if [ -n "${OWT_RELEASE_URL:-}" ]; then
		base="${OWT_RELEASE_URL%/}"
		case "$base" in
		https://* | http://* | file://*) ;;
		*)
			echo "owt install: OWT_RELEASE_URL starts with https://, http:// or file://, not \"$OWT_RELEASE_URL\"" >&2
			exit 2
			;;
		esac
	elif [ -n "$version" ]; then
		base="$RELEASES/download/$version"
	else
		base="$RELEASES/latest/download"
	fi
	fetch "$base/checksums.txt" "$tmp/checksums.txt" 1048576 ||
		die "could not download $base/checksums.txt${fetch_err:+: $fetch_err}"
	# The archive's name carries the release's version: checksums.txt,
	# whose name does not, says it (sha256sum format: SUM  NAME).
	name="$(awk -v s="_${os}_${arch}.tar.gz" '{ n = $2; sub(/^\*/, "", n) } n ~ /^owt_/ && substr(n, length(n) - length(s) + 1) == s { print n }' "$tmp/checksums.txt")"
	case "$name" in
	"") die "checksums.txt at $base lists no owt_VERSION_${os}_${arch}.tar.gz" ;;
	*"
"*) die "checksums.txt at $base lists more than one archive for ${os}_${arch}" ;;
	*/* | *..*) die "checksums.txt at $base names an odd file: $name" ;;
	esac
	want="$(awk -v n="$name" '{ f = $2; sub(/^\*/, "", f) } f == n { print $1; exit }' "$tmp/checksums.txt")"
	echo "downloading $base/$name"
	fetch "$base/$name" "$tmp/$name" 104857600 ||
		die "could not download $base/$name${fetch_err:+: $fetch_err}; nothing installed"
	got="$(sha256_of "$tmp/$name")"
	[ "$want" = "$got" ] || die "sha256 mismatch for $base/$name (expected $want, got $got): not installed"
	mkdir "$tmp/x"
	tar -xzf "$tmp/$name" -C "$tmp/x" || die "could not unpack $name"
	from="$tmp/x"
}

if [ -z "$from" ]; then
	download
fi
for p in $PROGRAMS; do
	[ -f "$from/$p" ] || die "$from has no $p: every one of $PROGRAMS is needed; nothing installed"
done
mkdir -p "$bin_dir" || die "cannot create $bin_dir"
bin_dir="$(cd "$bin_dir" && pwd)"
# Temporary copies an install killed outright left: their pid is gone.
for f in "$bin_dir"/.owt*.new.*; do
	[ -f "$f" ] || continue
	pid="${f##*.}"
	case "$pid" in "" | *[!0-9]*) continue ;; esac
	kill -0 "$pid" 2>/dev/null || rm -f "$f"
done
# Every program is copied beside its place first, then each renamed over
# it (owt, which the plugin checks for, last): an owt running now keeps
# its file, no one sees half a program, and a failure or a kill while
# copying leaves the old set whole.
for p in $PROGRAMS; do
	cp "$from/$p" "$bin_dir/.$p.new.$$" && chmod 0755 "$bin_dir/.$p.new.$$" ||
		die "could not copy $p into $bin_dir: nothing installed"
done
for p in ${PROGRAMS#owt } owt; do
	mv -f "$bin_dir/.$p.new.$$" "$bin_dir/$p" || die "could not install $p into $bin_dir"
done
echo "installed $PROGRAMS into $bin_dir: $("$bin_dir/owt" --version 2>&1)"

[ "$path_check" = 1 ] || exit 0
case ":${PATH:-}:" in
*":$bin_dir:"* | *":$bin_dir/:"*)
	found="$(command -v owt 2>/dev/null || true)"
	if [ -n "$found" ] && [ "$found" != "$bin_dir/owt" ]; then
		echo "note: $found comes first on PATH, not $bin_dir/owt: remove it, or put $bin_dir before it"
	fi
	;;
*)
	echo
	echo "$bin_dir is not on your PATH. Add it:"
	case "${SHELL:-}" in
	*/zsh) echo "  echo 'export PATH=\"$bin_dir:\$PATH\"' >> ~/.zshrc" ;;
	*/fish) echo "  fish_add_path $bin_dir" ;;
	*) echo "  echo 'export PATH=\"$bin_dir:\$PATH\"' >> ~/.bashrc" ;;
	esac
	echo "then open a new shell (and restart tmux, whose server keeps the PATH it started with)."
	;;
esac
