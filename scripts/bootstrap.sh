#!/usr/bin/env bash
# Finds the owt binary for the tmux plugin, then runs `owt tmux init`.
#
#   bootstrap.sh start    what owt.tmux runs. When bin/owt was built for this
#                         checkout it binds the keys at once; otherwise it
#                         starts `install` in the background and returns, so
#                         tmux start-up never waits for a build or download.
#   bootstrap.sh install  in order: build bin/owt and its sibling programs
#                         with Go (scripts/build.sh, as make build does;
#                         when Go is found and @owt-build is not off), else
#                         download the release archive for this OS/arch
#                         from @owt-release-url and check its sha256
#                         (scripts/install.sh, as a user without Go does),
#                         else use `owt` on PATH. Then `owt tmux init`, and
#                         "owt ready" on the status line and in the log.
#
# With @owt-link-bin on (or a folder), owt and its sibling programs are
# linked into ~/.local/bin (or that folder), so owt is on PATH in a shell;
# off (the default), "owt ready" says how to get it there.
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
releases="https://github.com/owt-tmux/owt/releases"
programs="owt owt-popup owt-mcp"

tmux_option() {
	local v
	v="$(tmux show-option -gqv "$1" 2>/dev/null)"
	echo "${v:-$2}"
}

# checkout_version names the plugin's checkout as owt --version names the
# commit it was built from (internal/buildinfo): the commit's first 12 hex
# digits, then ", modified" when git status lists anything (Go's own test
# for vcs.modified). Empty when the plugin folder is not a git checkout.
checkout_version() {
	local c
	c="$(git -C "$plugin_dir" rev-parse HEAD 2>/dev/null)" || return 0
	c="${c:0:12}"
	if [ -n "$(git -C "$plugin_dir" --no-optional-locks status --porcelain 2>/dev/null)" ]; then
		echo "$c, modified"
	else
		echo "$c"
	fi
}

# built_from is the commit (and ", modified") owt --version of $1 names.
built_from() {
	local v c
	v="$("$1" --version 2>/dev/null)" || return 0
	case "$v" in
	*"(commit "*) ;;
	*) return 0 ;;
	esac
	v="${v#*(commit }"
	c="${v%%[,)]*}"
	case "$v" in
	"$c, modified"*) echo "$c, modified" ;;
	*) echo "$c" ;;
	esac
}

# binary_current: bin/owt and its sibling programs exist and were made
# for this checkout: built from it, or downloaded for it (the stamp).
binary_current() {
	local p want
	for p in $programs; do
		[ -x "$bin_dir/$p" ] || return 1
	done
	want="$(checkout_version)"
	[ -z "$want" ] && return 0 # an unpacked release: its bin/owt is its own
	[ "$(built_from "$bin")" = "$want" ] && return 0
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ]
}

has_client() {
	[ -n "$(tmux list-clients -F '#{client_name}' 2>/dev/null)" ]
}

show() {
	tmux display-message -d 8000 -- "$1" 2>/dev/null || tmux display-message -- "$1" 2>/dev/null
}

# notify shows a problem on the status line (tell) and keeps it in
# @owt-bootstrap-error.
notify() {
	echo "owt: $*" >&2
	tmux set-option -gq @owt-bootstrap-error "$*" 2>/dev/null
	tell "owt: $*"
}

# tell shows a line on the status line: now when a client is attached,
# else once one attaches (tmux is still starting).
tell() {
	local msg="${1//#/##}"
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
		local note
		note="$(link_bin)"
		[ -n "$note" ] && tell "owt: ${note//$'\n'/; }"
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

# build builds every program into bin/ with scripts/build.sh, the flags
# make build uses, and records the checkout they were built for.
build() {
	local go="$1" want tmp
	want="$(checkout_version)"
	tmp="$bin_dir/build.$$"
	echo "building with $go ($("$go" version 2>&1))"
	if ! "$plugin_dir/scripts/build.sh" "$tmp" "$go"; then
		rm -rf "$tmp"
		return 1
	fi
	# owt last: the binary_current of a start meanwhile sees all or nothing.
	local p
	for p in $programs; do
		[ "$p" = owt ] || mv -f "$tmp/$p" "$bin_dir/$p" || break
	done
	mv -f "$tmp/owt" "$bin" && echo "$want" >"$stamp"
	local ok=$?
	rm -rf "$tmp"
	return $ok
}

# release_url is where the release archives are: @owt-release-url, else
# the GitHub release of the checkout's tag when it is at one, else the
# latest release.
release_url() {
	local tag
	tag="$(git -C "$plugin_dir" describe --tags --exact-match 2>/dev/null)"
	if [ -n "$tag" ]; then
		tmux_option @owt-release-url "$releases/download/$tag"
	else
		tmux_option @owt-release-url "$releases/latest/download"
	fi
}

# download installs the release archive for this OS/arch into bin/ with
# scripts/install.sh, which checks its sha256 against checksums.txt and
# installs nothing when it does not match. On failure it sets reason.
download() {
	local out url
	url="$(release_url)"
	case "$url" in
	https://* | http://* | file://*) ;;
	*)
		reason="@owt-release-url starts with https://, http:// or file:// (or is none), not \"$url\""
		echo "$reason"
		return 1
		;;
	esac
	if out="$(OWT_RELEASE_URL="$url" sh "$plugin_dir/scripts/install.sh" --bin-dir "$bin_dir" --no-path-check 2>&1)"; then
		echo "$out"
		checkout_version >"$stamp"
		return 0
	fi
	echo "$out"
	reason="$(printf '%s\n' "$out" | sed -n 's/^owt install: //p' | tail -n 1)"
	reason="${reason:-${out##*$'\n'}}"
	return 1
}

# link_bin puts owt and its sibling programs on PATH as links in
# ~/.local/bin (@owt-link-bin on) or the folder @owt-link-bin names. A file
# there that is not a link, or a link to something else (the user's own
# owt), is left alone, and said so; a dangling link is replaced. It prints what the
# user should know, nothing when all is well.
link_bin() {
	local want dir p target dest
	want="$(tmux_option @owt-link-bin off)"
	case "$want" in
	off | "") return 0 ;;
	on) dir="$HOME/.local/bin" ;;
	/*) dir="$want" ;;
	*)
		echo "@owt-link-bin is on, off or a folder (an absolute path), not \"$want\""
		return 0
		;;
	esac
	mkdir -p "$dir" || {
		echo "cannot create $dir for @owt-link-bin"
		return 0
	}
	for p in $programs; do
		target="$dir/$p"
		if [ -L "$target" ]; then
			dest="$(readlink "$target" 2>/dev/null)"
			[ "$dest" = "$bin_dir/$p" ] && continue
			# The user's own link (another install of owt) stays; only a
			# dangling one is replaced.
			if [ -e "$target" ]; then
				echo "$target is a link to $dest, not to the plugin's $bin_dir/$p, so it is left as it is (@owt-link-bin): remove it to use the plugin's"
				continue
			fi
		elif [ -e "$target" ]; then
			echo "$target is not a link, so it is left as it is (@owt-link-bin): remove it to use the plugin's"
			continue
		fi
		ln -sfn "$bin_dir/$p" "$target" || echo "cannot link $target to $bin_dir/$p"
	done
	case ":$PATH:" in
	*":$dir:"*) ;;
	*) echo "$dir is not on PATH: add it (export PATH=\"$dir:\$PATH\" in your shell's rc file)" ;;
	esac
}

# path_hint says how to get owt on PATH in a shell, nothing when the owt
# on PATH is already this one (a link to it counts).
path_hint() {
	local found
	found="$(command -v owt 2>/dev/null)"
	if [ -n "$found" ] && [ "$(readlink -f "$found" 2>/dev/null)" = "$(readlink -f "$bin" 2>/dev/null)" ]; then
		return 0
	fi
	echo "for owt in a shell: set -g @owt-link-bin on (links into ~/.local/bin), or add $bin_dir to PATH"
}

# ready tells the user the plugin's owt works now: on the status line and
# with a success line in the log.
ready() {
	local how="$1" note
	note="$(link_bin)"
	note="${note//$'\n'/; }"
	[ -z "$note" ] && [ "$(tmux_option @owt-link-bin off)" = off ] && note="$(path_hint)"
	echo "== $(date '+%F %T') owt ready: $how; $("$bin" --version 2>&1)${note:+; $note}"
	tell "owt ready ($how)${note:+: $note}"
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

# take_lock makes the lock folder $1 holding this install's pid. When
# another install holds it (tmux start and TPM's source both start one) it
# says so in the log and fails: that install binds the keys. A lock whose
# install is gone (killed, a reboot mid-build: its pid is not running, it
# has no pid, or it is older than 30 minutes, longer than a build or two
# bounded downloads take) is taken over, and said so.
take_lock() {
	local lock="$1" pid since stale
	for _ in 1 2 3; do
		if mkdir "$lock" 2>/dev/null; then
			echo $$ >"$lock/pid"
			return 0
		fi
		# An install writes its pid right after making the lock.
		pid="$(cat "$lock/pid" 2>/dev/null)"
		[ -z "$pid" ] && sleep 1 && pid="$(cat "$lock/pid" 2>/dev/null)"
		since="$(date -r "$lock" '+%F %T' 2>/dev/null)"
		stale=""
		if [ -z "$pid" ]; then
			stale="it holds no pid"
		elif ! kill -0 "$pid" 2>/dev/null; then
			stale="its install (pid $pid) is not running"
		elif [ -n "$(find "$lock" -maxdepth 0 -mmin +30 2>/dev/null)" ]; then
			stale="it is older than 30 minutes"
		fi
		if [ -z "$stale" ]; then
			echo "== $(date '+%F %T') another install (pid $pid, since ${since:-?}) holds $lock: it binds the keys when owt is ready"
			return 1
		fi
		echo "== $(date '+%F %T') the lock $lock${since:+ (since $since)} was left behind: $stale; taken over"
		# Moved aside first, so two installs cannot both take it: one that
		# moved a lock just taken by another puts it back.
		mv "$lock" "$lock.stale.$$" 2>/dev/null || continue
		if [ "$(cat "$lock.stale.$$/pid" 2>/dev/null)" != "$pid" ]; then
			mv "$lock.stale.$$" "$lock" 2>/dev/null
			return 1
		fi
		rm -rf "$lock.stale.$$"
	done
	echo "== $(date '+%F %T') could not take the lock $lock"
	return 1
}

install() {
	local lock="$bin_dir/.bootstrap.lock" problems=() go path_owt
	reason=""
	take_lock "$lock" || exit 0
	trap 'rm -rf "$lock"' EXIT
	echo "== $(date '+%F %T') owt bootstrap for checkout $(checkout_version)"
	clear_error
	if binary_current; then
		run_init "$bin"
		exit
	fi
	local began=$SECONDS
	if [ "$(tmux_option @owt-build on)" != off ]; then
		if go="$(find_go)"; then
			if build "$go"; then
				run_init "$bin" && ready "built in $((SECONDS - began)) s"
				exit
			fi
			problems+=("go build failed")
		else
			problems+=("Go not found")
		fi
	fi
	if [ "$(tmux_option @owt-release-url "")" != none ]; then
		if download; then
			run_init "$bin" && ready "downloaded in $((SECONDS - began)) s"
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
