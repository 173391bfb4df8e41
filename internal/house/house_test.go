package house

import (
	"go/build"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/owt-tmux/owt/"

// The floors of the house (see the package doc), lowest first.
const (
	base = iota
	ground
	models
	useCases
	drivers
	faces
	entry
)

var floorNames = []string{"base", "ground", "models", "use cases", "drivers", "faces", "entry"}

// rooms puts every package of owt on its floor. A new package must be
// added here, on the floor of its concern.
var rooms = map[string]int{
	"cmd/owt":       entry,
	"cmd/owt-popup": entry,

	"internal/cli": faces,
	"popups":       faces,

	"internal/monitor":   drivers,
	"internal/runengine": drivers,

	"internal/control":   useCases,
	"internal/react":     useCases,
	"internal/merge":     useCases,
	"internal/workspace": useCases,
	"internal/checks":    useCases,
	"internal/pullreq":   useCases,
	"keybindings":        useCases,

	"internal/outbox":  useCases, // its courier types into panes through workspace; moving out
	"internal/agent":   models,
	"internal/run":     models,
	"internal/runplan": models,
	"internal/runwork": models,

	"internal/git":            ground,
	"internal/tmux":           ground,
	"internal/forge":          ground,
	"internal/state":          ground,
	"internal/setup":          ground,
	"internal/monitor/daemon": ground,

	"internal/text":       base,
	"internal/proc":       base,
	"internal/atomicfile": base,
	"internal/config":     base,

	// Not part of owt: the benchmark driver, the end-to-end tests and this
	// plan. They may import anything.
	"internal/bench": -1,
	"internal/e2e":   -1,
	"internal/house": -1,
}

// sideways are the allowed imports between rooms of one floor: from → to.
var sideways = map[string][]string{
	"internal/control":        {"internal/merge", "internal/run", "internal/workspace"},
	"internal/react":          {"internal/checks", "internal/outbox", "internal/workspace"},
	"internal/run":            {"internal/runplan", "internal/runwork"},
	"internal/monitor":        {"internal/runengine"},
	"internal/pullreq":        {"internal/checks", "internal/workspace"},
	"internal/workspace":      {},
	"internal/outbox":         {"internal/workspace"},
	"internal/agent":          {},
	"internal/git":            {},
	"internal/forge":          {},
	"internal/state":          {},
	"internal/monitor/daemon": {"internal/state", "internal/tmux"},
}

// TestImportsPointDown fails on every import of one owt package by
// another that the plan does not allow: one pointing to a higher floor,
// or sideways without being listed.
func TestImportsPointDown(t *testing.T) {
	root := moduleRoot(t)
	pkgs := packages(t, root)
	for _, pkg := range pkgs {
		from, ok := rooms[pkg.path]
		if !ok {
			t.Errorf("%s is on no floor: add it to rooms in house_test.go, on the floor of its concern", pkg.path)
			continue
		}
		if from < 0 {
			continue
		}
		for _, imp := range pkg.imports {
			to, ok := rooms[imp]
			switch {
			case !ok:
				continue // reported as a package of its own
			case to < from:
				continue
			case to == from && allowedSideways(pkg.path, imp):
				continue
			case to == from:
				t.Errorf("%s imports %s: both on the %s floor, and that arrow is not in sideways", pkg.path, imp, floorNames[to])
			default:
				t.Errorf("%s (%s) imports %s (%s): an arrow pointing up", pkg.path, floorNames[from], imp, floorNames[to])
			}
		}
	}
	for path := range rooms {
		if !hasPackage(pkgs, path) {
			t.Errorf("rooms lists %s, which is no package any more: take it out", path)
		}
	}
}

func allowedSideways(from, to string) bool {
	for _, s := range sideways[from] {
		if s == to {
			return true
		}
	}
	return false
}

type pkg struct {
	path    string
	imports []string
}

// packages reads the non-test imports of every package of the module
// below root (cmd, internal, popups, keybindings), as module-relative
// paths.
func packages(t *testing.T, root string) []pkg {
	t.Helper()
	var out []pkg
	err := filepath.WalkDir(root, func(dir string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		if rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(dir, 0)
		if err != nil {
			return nil // no Go files here
		}
		p := pkg{path: rel}
		for _, imp := range bp.Imports {
			if strings.HasPrefix(imp, module) {
				p.imports = append(p.imports, strings.TrimPrefix(imp, module))
			}
		}
		sort.Strings(p.imports)
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("found only %d packages under %s: is this the module root?", len(out), root)
	}
	return out
}

func hasPackage(pkgs []pkg, path string) bool {
	for _, p := range pkgs {
		if p.path == path {
			return true
		}
	}
	return false
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", dir)
	}
	return dir
}
