// Package buildinfo says which owt this is: its version, commit and date,
// read from what the Go toolchain stamps into every binary it builds (the
// module's version, from a git tag, and the git commit). A release built at
// a tag says that tag; any other build says Dev and its commit. make build,
// the plugin's build, the release archives and go install all get the same
// answer from the same place, with no linker flag to forget.
package buildinfo

import (
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// Dev is the version of every build that is not a release: built between
// tags, from a modified checkout, or from a tree without git.
const Dev = "v0.0.0-dev"

// Set with -ldflags "-X github.com/owt-tmux/owt/internal/buildinfo.NAME=…",
// these stand for what the toolchain would stamp, where it cannot: Go
// finds no repository in a linked git worktree (its .git is a file;
// golang/go#58218), so scripts/build.sh passes git's answers there; a
// packager building a source tree without git may set Version. Empty (the
// rest of the time), the toolchain's stamp is read.
var (
	Version  string // a release tag, v0.1.0
	Commit   string // the full commit hash
	Date     string // the commit's time, RFC 3339 UTC
	Modified string // "true" when the checkout had changes
)

// Info is one build's identity.
type Info struct {
	Version  string // a release tag (v0.1.0), else Dev
	Commit   string // the git commit, 12 hex digits; "" when not known
	Modified bool   // built from a checkout with changes not committed
	Date     string // the commit's time (RFC 3339, UTC); "" when not known
}

// Release reports whether the build is a tagged release.
func (i Info) Release() bool { return i.Version != Dev }

// String is what owt --version prints after "owt version ":
// "v0.1.0 (commit 0123456789ab, 2026-11-29T08:33:56Z)", or for any other
// build "v0.0.0-dev (commit 0123456789ab, modified, 2026-11-29T08:33:56Z)".
func (i Info) String() string {
	var parts []string
	switch {
	case i.Commit != "":
		parts = append(parts, "commit "+i.Commit)
	case !i.Release():
		parts = append(parts, "commit unknown")
	}
	if i.Modified {
		parts = append(parts, "modified")
	}
	if i.Date != "" {
		parts = append(parts, i.Date)
	}
	if len(parts) == 0 {
		return i.Version
	}
	return i.Version + " (" + strings.Join(parts, ", ") + ")"
}

// pseudo matches the tail of a Go pseudo-version, the version the
// toolchain stamps for a commit that is not tagged:
// v0.0.0-20261129083356-0123456789ab, v0.1.1-0.20261129083356-0123456789ab.
// Compiled when asked, not at every owt start (hooks run owt a lot).
var pseudo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[-.][0-9]{14}-[0-9a-f]{12}$`) })

// release is a plain tag: vMAJOR.MINOR.PATCH with an optional
// pre-release (v0.2.0-rc.1), no build metadata (+dirty).
var release = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)
})

// From reads an Info from the toolchain's build information (nil: none).
func From(bi *debug.BuildInfo) Info {
	info := Info{Version: Dev}
	if bi == nil {
		return info
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = short(s.Value)
		case "vcs.modified":
			info.Modified = s.Value == "true"
		case "vcs.time":
			info.Date = s.Value
		}
	}
	v := bi.Main.Version
	if release().MatchString(v) && !pseudo().MatchString(v) && !info.Modified {
		info.Version = v
	}
	return info
}

// Read is this program's Info: the toolchain's stamp, or the linker's
// Commit, Date, Modified and Version where they are set.
var Read = sync.OnceValue(func() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromLinker(From(bi), Version, Commit, Date, Modified)
})

func fromLinker(info Info, version, commit, date, modified string) Info {
	if commit != "" {
		info = Info{Version: Dev, Commit: short(commit), Modified: modified == "true", Date: date}
	}
	if version != "" {
		info.Version = version
	}
	return info
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// String is Read().String(): what owt --version says.
func String() string { return Read().String() }

// IsDev reports whether a version as owt --version prints it (without
// "owt version ") is not a release: two such builds are the same owt
// only byte for byte. An owt from before this package said "dev".
func IsDev(v string) bool {
	return v == "dev" || strings.HasPrefix(v, Dev)
}
