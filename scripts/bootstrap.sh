#!/usr/bin/env bash
# Finds the owt binary for the tmux plugin, then runs `owt tmux init`.
#
#   bootstrap.sh start    what owt.tmux runs. When bin/owt was built for this
#                         checkout it binds the keys at once; otherwise it
#                         starts `install` in the background and returns, so
#                         tmux start-up never waits for a build or download.
#   bootstrap.sh install  in order: build bin/owt with Go (when Go is found
#                         and @owt-build is not off), else download the
#                         release archive for this OS/arch from
#                         @owt-release-url and check its sha256, else use
#                         `owt` on PATH. Then `owt tmux init`.
#
# Every failure is shown with display-message (and kept in the global option
# @owt-bootstrap-error and in bin/bootstrap.log), never swallowed.
set -u

self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
plugin_dir="$(cd "$(dirname "$self")/.." && pwd)"
bin_dir="$plugin_dir/bin"
bin="$bin_dir/owt"
stamp="$bin_dir/.checkout" # the checkout bin/owt was built or downloaded for
log="$bin_dir/bootstrap.log"
default_release_url="https://github.com/owt-tmux/owt/releases/latest/download"

tmux_option() {
	local v
	v="$(tmux show-option -gqv "$1" 2>/dev/null)"
	echo "${v:-$2}"
}

# checkout_version names the plugin's checkout the way `make build` stamps
# owt --version; empty when the plugin folder is not a git checkout.
checkout_version() {
	git -C "$plugin_dir" describe --tags --always --dirty 2>/dev/null
}

# binary_current: bin/owt (and bin/owt-popup, its popups) exist and were
# made for this checkout.
binary_current() {
	[ -x "$bin" ] && [ -x "$bin_dir/owt-popup" ] && [ -x "$bin_dir/owt-mcp" ] || return 1
	local want
	want="$(checkout_version)"
	[ -z "$want" ] && return 0 # an unpacked release: its bin/owt is its own
	[ "$("$bin" --version 2>/dev/null)" = "owt version $want" ] && return 0
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ]
}

has_client() {
	[ -n "$(tmux list-clients -F '#{client_name}' 2>/dev/null)" ]
}

show() {
	tmux display-message -d 8000 -- "$1" 2>/dev/null || tmux display-message -- "$1" 2>/dev/null
}

# notify shows a problem on the status line — once a client is attached,
# if tmux is still starting — and keeps it in @owt-bootstrap-error.
notify() {
	local msg="owt: $*"
	echo "$msg" >&2
	tmux set-option -gq @owt-bootstrap-error "$*" 2>/dev/null
	msg="${msg//#/##}"
	if has_client; then
		show "$msg"
		return
	fi
	(
		for _ in $(seq 120); do
			sleep 1
			# Gone with the server: nobody is left to tell.
			tmux list-sessions >/dev/null 2>&1 || break
			if has_client; then
				show "$msg"
				break
			fi
		done
	) </dev/null >/dev/null 2>&1 &
}

run_init() {
	local out
	if ! out="$("$1" tmux init 2>&1)"; then
		notify "tmux init failed: ${out#owt: } (see 'owt tmux keys' and your @owt-* options)"
		return 1
	fi
	return 0
}

clear_error() {
	tmux set-option -gqu @owt-bootstrap-error 2>/dev/null
}

# path_only: building and downloading are both switched off, so owt on PATH
# is the only choice and there is nothing to wait for.
path_only() {
	[ "$(tmux_option @owt-build on)" = off ] && [ "$(tmux_option @owt-release-url "")" = none ]
}

start() {
	# Problems are shown with display-message; the exit status stays 0 so
	# tmux does not report the same failure a second time.
	if binary_current; then
		clear_error
		run_init "$bin"
		exit 0
	fi
	if path_only; then
		clear_error
		if path_owt="$(command -v owt)"; then
			run_init "$path_owt"
			exit 0
		fi
		notify "owt is not on PATH, and @owt-build is off and @owt-release-url is none: install owt (make install) or turn one of them back on"
		exit 0
	fi
	mkdir -p "$bin_dir" || {
		notify "cannot create $bin_dir"
		exit 0
	}
	# Detached, with no tie to tmux's pipe, so run-shell returns now.
	if command -v setsid >/dev/null 2>&1; then
		setsid "$self" install </dev/null >>"$log" 2>&1 &
	else
		nohup "$self" install </dev/null >>"$log" 2>&1 &
	fi
	has_client && show "owt: preparing its binary in the background; the keys are bound when it is ready"
	exit 0
}

find_go() {
	if command -v go 2>/dev/null; then
		return 0
	fi
	local g
	for g in /usr/local/go/bin/go "$HOME/go/bin/go" /usr/lib/go/bin/go; do
		if [ -x "$g" ]; then
			echo "$g"
			return 0
		fi
	done
	return 1
}

build() {
	local go="$1" want tmp flags
	want="$(checkout_version)"
	tmp="$bin_dir/build.$$"
	flags="-X github.com/owt-tmux/owt/internal/cli.Version=${want:-dev}"
	echo "building with $go ($("$go" version 2>&1))"
	mkdir -p "$tmp" || return 1
	# Static, cgo-free binaries, as make build makes them.
	if ! (cd "$plugin_dir" && export CGO_ENABLED=0 &&
		"$go" build -tags urfave_cli_no_docs -ldflags "$flags" -o "$tmp/owt" ./cmd/owt &&
		"$go" build -tags urfave_cli_no_docs -ldflags "$flags" -o "$tmp/owt-popup" ./cmd/owt-popup &&
		"$go" build -tags urfave_cli_no_docs -ldflags "$flags" -o "$tmp/owt-mcp" ./cmd/owt-mcp &&
		"$go" build -ldflags "-s -w" -o "$tmp/owt-wait" ./cmd/owt-wait); then
		rm -rf "$tmp"
		return 1
	fi
	mv -f "$tmp/owt-popup" "$bin_dir/owt-popup" && mv -f "$tmp/owt-mcp" "$bin_dir/owt-mcp" && mv -f "$tmp/owt-wait" "$bin_dir/owt-wait" &&
		mv -f "$tmp/owt" "$bin" && echo "$want" >"$stamp"
	rm -rf "$tmp"
}

fetch() {
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --connect-timeout 10 --max-time 300 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -T 30 -O "$2" "$1"
	else
		echo "neither curl nor wget is installed"
		return 1
	fi
}

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | awk '{print $1}'
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | awk '{print $1}'
	else
		return 1
	fi
}

# download fetches owt_<os>_<arch>.tar.gz and checksums.txt (sha256sum
# format) from the release URL, checks the sum and installs the owt and
# owt-popup inside. On failure it sets reason.
download() {
	local base os arch name tmpd want_sum got_sum
	base="$(tmux_option @owt-release-url "$default_release_url")"
	base="${base%/}"
	os="$(uname -s | tr '[:upper:]' '[:lower:]')"
	case "$(uname -m)" in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*)
		reason="no release archive for $(uname -m)"
		return 1
		;;
	esac
	name="owt_${os}_${arch}.tar.gz"
	tmpd="$(mktemp -d)" || return 1
	echo "downloading $base/$name"
	if ! fetch "$base/$name" "$tmpd/$name" || ! fetch "$base/checksums.txt" "$tmpd/checksums.txt"; then
		reason="could not download $base/$name and checksums.txt"
		rm -rf "$tmpd"
		return 1
	fi
	want_sum="$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' "$tmpd/checksums.txt")"
	got_sum="$(sha256_of "$tmpd/$name")"
	if [ -z "$want_sum" ]; then
		reason="checksums.txt at $base lists no $name"
	elif [ -z "$got_sum" ]; then
		reason="no sha256sum or shasum to check $name"
	elif [ "$want_sum" != "$got_sum" ]; then
		reason="sha256 mismatch for $base/$name (expected $want_sum, got $got_sum); not installed"
	elif ! tar -xzf "$tmpd/$name" -C "$tmpd" owt owt-popup owt-mcp || [ ! -f "$tmpd/owt" ] || [ ! -f "$tmpd/owt-popup" ] || [ ! -f "$tmpd/owt-mcp" ]; then
		reason="$name does not hold owt, owt-popup and owt-mcp"
	else
		# owt-wait is newer than the archive's format: taken when it is
		# there (without it, owt _run waits for each agent itself).
		if tar -xzf "$tmpd/$name" -C "$tmpd" owt-wait 2>/dev/null && [ -f "$tmpd/owt-wait" ]; then
			chmod 0755 "$tmpd/owt-wait" && mv -f "$tmpd/owt-wait" "$bin_dir/owt-wait"
		fi
		chmod 0755 "$tmpd/owt" "$tmpd/owt-popup" "$tmpd/owt-mcp" &&
			mv -f "$tmpd/owt-popup" "$bin_dir/owt-popup" &&
			mv -f "$tmpd/owt-mcp" "$bin_dir/owt-mcp" &&
			mv -f "$tmpd/owt" "$bin" &&
			checkout_version >"$stamp"
		rm -rf "$tmpd"
		return 0
	fi
	rm -rf "$tmpd"
	return 1
}

# join prints its arguments separated by "; ".
join() {
	local out="${1:-nothing left to try}"
	shift || true
	for p in "$@"; do
		out="$out; $p"
	done
	echo "$out"
}

install() {
	local lock="$bin_dir/.bootstrap.lock" problems=() go path_owt
	reason=""
	if ! mkdir "$lock" 2>/dev/null; then
		# Another install runs (tmux start and TPM's source both start one);
		# it will bind the keys. A lock left by a killed install expires.
		if [ -n "$(find "$lock" -maxdepth 0 -mmin +15 2>/dev/null)" ]; then
			rmdir "$lock" && mkdir "$lock" || exit 0
		else
			exit 0
		fi
	fi
	trap 'rmdir "$lock" 2>/dev/null' EXIT
	echo "== $(date '+%F %T') owt bootstrap for checkout $(checkout_version)"
	clear_error
	if binary_current; then
		run_init "$bin"
		exit
	fi
	if [ "$(tmux_option @owt-build on)" != off ]; then
		if go="$(find_go)"; then
			if build "$go"; then
				run_init "$bin"
				exit
			fi
			problems+=("go build failed")
		else
			problems+=("Go not found")
		fi
	fi
	if [ "$(tmux_option @owt-release-url "")" != none ]; then
		if download; then
			run_init "$bin"
			exit
		fi
		problems+=("$reason")
	fi
	local why
	why="$(join ${problems[@]+"${problems[@]}"})"
	if path_owt="$(command -v owt)"; then
		notify "$why; using $path_owt instead (set @owt-build off and @owt-release-url none to go straight to it). Details in $log"
		run_init "$path_owt"
		exit
	fi
	notify "no owt binary: $why. Install Go and press prefix + I, or put owt on PATH (make install). Details in $log"
	exit 1
}

case "${1:-}" in
start) start ;;
install) install ;;
*)
	echo "usage: $0 start|install" >&2
	exit 2
	;;
esac
