#!/bin/sh
# Builds every program owt needs into DIR, the one way owt is built:
# `make build` and the tmux plugin's background build run this script, and
# .goreleaser.yaml builds the release archives with the same flags (a test,
# internal/buildinfo, holds them equal).
#
#   scripts/build.sh DIR [GO]
#
# owt, and beside it owt-popup (the tmux popups) and owt-mcp (the MCP server
# and the memory): kept out of owt so no hook or status-line run loads terminal UI libraries, net/http
# or SQLite. All are static, cgo-free binaries (net's resolver would
# otherwise link libc into owt-mcp), without file paths of the machine that
# built them (-trimpath) or debug symbols (-s -w). urfave_cli_no_docs leaves
# out urfave/cli's man-page generator, whose markdown library costs every
# owt start ~0.5 ms (hooks run owt a lot). The version is not a flag: the
# Go toolchain stamps the git tag or commit (internal/buildinfo).
set -eu

PROGRAMS="owt owt-popup owt-mcp"
TAGS="urfave_cli_no_docs"
LDFLAGS="-s -w"

[ $# -ge 1 ] && [ $# -le 2 ] || {
	echo "usage: scripts/build.sh DIR [GO]" >&2
	exit 2
}
go="${2:-go}"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
pkgs=""
for p in $PROGRAMS; do
	pkgs="$pkgs ./cmd/$p"
done
# The version and commit: in a git checkout Go stamps them itself, even
# where GOFLAGS says -buildvcs=false (go env -w, for checkouts git
# distrusts). In a linked worktree it cannot (its .git is a file: Go finds
# no repository, or the one around it; golang/go#58218), so git's answers go
# to the linker (internal/buildinfo). Outside git (a source tarball)
# nothing is stamped, and owt says v0.0.0-dev.
vcs=""
ldflags="$LDFLAGS"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	if [ "$(git rev-parse --path-format=absolute --git-dir)" = "$(git rev-parse --path-format=absolute --git-common-dir)" ]; then
		vcs="-buildvcs=true"
	else
		vcs="-buildvcs=false"
		pkg=github.com/owt-tmux/owt/internal/buildinfo
		modified=false
		[ -z "$(git --no-optional-locks status --porcelain)" ] || modified=true
		date="$(TZ=UTC git show -s --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ HEAD)"
		ldflags="$ldflags -X $pkg.Commit=$(git rev-parse HEAD) -X $pkg.Date=$date -X $pkg.Modified=$modified"
		if [ "$modified" = false ] && tag="$(git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null)"; then
			ldflags="$ldflags -X $pkg.Version=$tag"
		fi
	fi
fi
# One go build for all: it links them side by side, in parallel.
# shellcheck disable=SC2086 # pkgs and vcs are lists of words
CGO_ENABLED=0 "$go" build -trimpath $vcs -tags "$TAGS" -ldflags "$ldflags" -o "$out/" $pkgs
