#!/bin/sh
# Builds agent-deck, the closest peer (Go, tmux, a session per agent), from
# its public source and runs owt's fleet bench with it beside owt: the same
# fleet of fake agents for each (each in its own tmux server, HOME and temp
# folders), the figures it has an equivalent for (list --json, the CPU of its
# open TUI) measured in turn with owt's in the same run.
#
#   scripts/bench-peer.sh [SOURCE] [-- BENCH-FLAGS...]
#
# SOURCE is agent-deck's source: a checkout, or a git directory (a bare
# clone or mirror; its HEAD is built). Without one it is cloned from
# $AGENT_DECK_URL (default its GitHub repository) at $AGENT_DECK_REF (default
# the commit docs/explanation/fleet.md was measured with) into
# ${XDG_CACHE_HOME:-~/.cache}/owt-bench/agent-deck. Its Go modules come from
# the module proxy Go is configured with; when the build fails the script says
# why (the modules that could not be had, by name) and stops: no figures are
# made up. BENCH-FLAGS go to the bench
# (e.g. -fleet 10,100). Run from owt's repository, after make build.
set -eu

url="${AGENT_DECK_URL:-https://github.com/asheshgoplani/agent-deck.git}"
ref="${AGENT_DECK_REF:-47bb210373c87aa1a90f2a319acf9174ea4b3dae}"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/owt-bench"
src=""
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
	src="$1"
	shift
fi
if [ $# -ge 1 ] && [ "$1" = "--" ]; then
	shift
fi
[ -x bin/owt ] || {
	echo "bench-peer: no bin/owt here: run it from owt's repository after make build" >&2
	exit 2
}

work="$cache/agent-deck"
mkdir -p "$cache"
rm -rf "$work.src"
mkdir -p "$work.src"
if [ -z "$src" ]; then
	if [ ! -d "$work.git" ]; then
		git clone --quiet --bare "$url" "$work.git" || {
			echo "bench-peer: cannot clone $url: no agent-deck figures" >&2
			exit 1
		}
	fi
	git --git-dir="$work.git" fetch --quiet origin "$ref" 2>/dev/null || true
	src="$work.git"
else
	ref=HEAD
fi
if [ -f "$src/go.mod" ]; then
	cp -R "$src/." "$work.src"
else
	# A git directory. Its demo videos may be absent from a partial copy
	# (git then complains of them): they are not needed to build.
	git --git-dir="$src" archive --format=tar "$ref" -- . ':(exclude)demos' 2>"$work.archive.log" | tar -x -C "$work.src"
	[ -f "$work.src/go.mod" ] || {
		cat "$work.archive.log" >&2
		echo "bench-peer: no agent-deck source at $ref in $src" >&2
		exit 1
	}
fi
commit="$(git --git-dir="$src" rev-parse "$ref" 2>/dev/null || git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)"

cd "$work.src"
# The Go of this machine builds it (its go.mod asks for 1.25 or later).
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
mkdir -p "$work.bin"
if ! go build -o "$work.bin/agent-deck" ./cmd/agent-deck 2>"$work.build.log"; then
	# Which of the modules its go.mod needs could not be had, if that is
	# why: by name.
	dl="$(go mod download -json 2>&1 || true)"
	missing="$(printf '%s\n' "$dl" | sed -n 's/^\t"Path": "\(.*\)",$/\1/p; s/^\t"Error": "\(.*\)"$/  \1/p' | grep -B1 '^  ' | grep -v '^--$' || true)"
	[ -n "$missing" ] || missing="$(printf '%s\n' "$dl" | grep '^go: ' || true)"
	if [ -n "$missing" ]; then
		printf 'bench-peer: agent-deck %s needs Go modules that could not be downloaded here:\n%s\n' "$commit" "$missing" >&2
	else
		cat "$work.build.log" >&2
	fi
	echo "bench-peer: agent-deck did not build here: no agent-deck figures" >&2
	exit 1
fi
cd - >/dev/null
echo "agent-deck $commit built: $work.bin/agent-deck"
exec go run ./internal/bench -owt bin/owt -only fleet -peer "$work.bin/agent-deck" "$@"
