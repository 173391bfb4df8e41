#!/usr/bin/env bash
# Installs the real agent CLIs pinned in package.json (beside this script)
# into a cache dir and prints that dir's bin folder on stdout.
#
#   install.sh [DIR]    DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/owt-realtools
#
# Exit 3 (one line on stderr) when npm is missing or its registry cannot be
# reached; any other failure exits non-zero with npm's own output on stderr.
# A second run with the same package.json does nothing but print the bin dir
# (stamp file $DIR/.owt-realtools.stamp holds package.json's sha256, and the
# installed versions, OpenCode's plugin API's too, are checked against the
# pins).
#
# Claude Code on node 20: @anthropic-ai/claude-code 2.1.330 declares
# engines.node ">=22.0.0", but bin/claude.exe is a 500-byte shell placeholder
# ("Error: claude native binary not installed.") that its postinstall
# (install.cjs) replaces, by hard link or copy, with the native binary from the
# optional dependency @anthropic-ai/claude-code-<platform> (e.g. -linux-x64,
# bin "claude", ~380 MB). The binary does not run on node at all, so node 20 is
# fine; what it takes is:
#   * engine-strict off (npm's default: it only warns EBADENGINE),
#   * optional dependencies included (no --omit=optional / omit=optional),
#   * install scripts run (no --ignore-scripts; npm 11 warns that the scripts
#     are "not yet covered by allowScripts" but still runs them).
# We pass those three explicitly, and if the placeholder is still there
# afterwards (e.g. a future npm that blocks unapproved scripts) we run
# install.cjs ourselves, which is what the placeholder's message says to do.
# opencode-ai has the same shape (postinstall.mjs links
# opencode-<platform>/bin/opencode over bin/opencode.exe); codex and gemini
# are plain node entry points (codex.js execs the vendored native binary from
# the optional @openai/codex-<platform> package).
#
# OpenCode, on its first start in a config folder, installs its plugin API
# (@opencode-ai/plugin at its own version) there from the registry: ~10 s of
# CPU and a download in every test. It is installed once, at opencode-ai's
# pinned version, into $DIR/opencode-config, which the tests copy into their
# config folder (OpenCode then finds it installed and installs nothing).
set -euo pipefail

case ${BASH_SOURCE[0]} in
*/*) here=$(cd "${BASH_SOURCE[0]%/*}" && pwd) ;;
*) here=$PWD ;;
esac
DIR=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/owt-realtools}
BIN="$DIR/node_modules/.bin"
STAMP="$DIR/.owt-realtools.stamp"

fail3() { echo "install.sh: $*" >&2; exit 3; }

command -v npm >/dev/null 2>&1 || fail3 "npm not found on PATH"
command -v node >/dev/null 2>&1 || fail3 "node not found on PATH"

want_hash=$(sha256sum "$here/package.json" | cut -d' ' -f1)

# pins: "name version" lines from package.json's dependencies.
pins() {
	node -e '
		const d = require(process.argv[1]).dependencies || {};
		for (const [n, v] of Object.entries(d)) console.log(n + " " + v);
	' "$1"
}

# opencode_pin is opencode-ai's pinned version; plugin_version the plugin
# API's installed in $DIR/opencode-config ("" when none).
opencode_pin() { pins "$here/package.json" | awk '$1 == "opencode-ai" { print $2 }'; }
plugin_version() {
	node -e '
		try { console.log(require(process.argv[1]).version) } catch (e) { console.log("") }
	' "$DIR/opencode-config/node_modules/@opencode-ai/plugin/package.json"
}

installed_ok() {
	[ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want_hash" ] || return 1
	local name ver got
	while read -r name ver; do
		got=$(node -e '
			try { console.log(require(process.argv[1]).version) } catch (e) { console.log("") }
		' "$DIR/node_modules/$name/package.json")
		[ "$got" = "$ver" ] || return 1
	done < <(pins "$here/package.json")
	"$BIN/claude" --version >/dev/null 2>&1 || return 1
	[ "$(plugin_version)" = "$(opencode_pin)" ] || return 1
	return 0
}

if installed_ok; then
	echo "$BIN"
	exit 0
fi

# Registry reachable? (npm ping talks to the configured registry.)
npm ping --fetch-retries=0 --fetch-timeout=30000 >/dev/null 2>&1 || fail3 "npm registry unreachable ($(npm config get registry 2>/dev/null))"

mkdir -p "$DIR"
cp "$here/package.json" "$DIR/package.json"
rm -f "$STAMP"

# npm's own progress and warnings go to stderr so stdout stays the bin dir.
npm install --prefix "$DIR" --no-audit --no-fund \
	--include=optional --ignore-scripts=false --engine-strict=false \
	--loglevel=error 1>&2

# Claude Code's native binary: see the comment at the top.
if ! "$BIN/claude" --version >/dev/null 2>&1; then
	(cd "$DIR/node_modules/@anthropic-ai/claude-code" && node install.cjs) 1>&2
fi
if ! "$BIN/opencode" --version >/dev/null 2>&1; then
	(cd "$DIR/node_modules/opencode-ai" && node postinstall.mjs) 1>&2
fi
mkdir -p "$DIR/opencode-config"
echo "{\"dependencies\": {\"@opencode-ai/plugin\": \"$(opencode_pin)\"}}" >"$DIR/opencode-config/package.json"
npm install --prefix "$DIR/opencode-config" --no-audit --no-fund --loglevel=error 1>&2
if [ "$(plugin_version)" != "$(opencode_pin)" ]; then
	echo "install.sh: OpenCode's plugin API $(plugin_version) is not opencode-ai's $(opencode_pin)" >&2
	exit 1
fi
for t in claude codex gemini opencode; do
	if ! "$BIN/$t" --version >/dev/null 2>&1; then
		echo "install.sh: $t --version fails after install" >&2
		exit 1
	fi
done

echo "$want_hash" >"$STAMP"
echo "$BIN"
