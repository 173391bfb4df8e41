#!/bin/sh
# Installs owt without Go: downloads the release archive for this OS and
# architecture, checks it against the release's checksums.txt, and puts
# every program owt needs (owt, owt-popup, owt-mcp, owt-wait) in
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
#
# Nothing is installed unless the archive's sha256 is the one checksums.txt
# lists for it, and the archive holds every program. It needs sh, tar,
# gzip, curl or wget, and sha256sum or shasum; not Go.
set -eu

PROGRAMS="owt owt-popup owt-mcp owt-wait"
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

fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --connect-timeout 10 --max-time 300 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -T 30 -O "$2" "$1"
	else
		die "neither curl nor wget is installed"
	fi
}

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | awk '{print $1}'
	else
		shasum -a 256 "$1" | awk '{print $1}'
	fi
}

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t owt-install)" || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
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
	elif [ -n "$version" ]; then
		base="$RELEASES/download/$version"
	else
		base="$RELEASES/latest/download"
	fi
	fetch "$base/checksums.txt" "$tmp/checksums.txt" || die "could not download $base/checksums.txt"
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
	fetch "$base/$name" "$tmp/$name" || die "could not download $base/$name"
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
# Each program is copied beside its place and renamed over it: an owt
# running now keeps its file, and no one sees half a program.
for p in $PROGRAMS; do
	cp "$from/$p" "$bin_dir/.$p.new.$$" && chmod 0755 "$bin_dir/.$p.new.$$" &&
		mv -f "$bin_dir/.$p.new.$$" "$bin_dir/$p" || {
		rm -f "$bin_dir/.$p.new.$$"
		die "could not install $p into $bin_dir"
	}
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
