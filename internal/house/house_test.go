package house

import (
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/owt-tmux/owt/"

// The floors of the house (see the package doc), lowest first.
const (
	base = iota
	ground
	support
	models
	core
	useCases
	verbs
	drivers
	commandKit
	faces
	commandTable
	entry
)

var floorNames = []string{"base", "ground", "support", "models", "core", "use cases", "verbs", "drivers",
	"command kit", "faces", "command table", "entry"}

// rooms puts every package of owt on its floor. A new package must be
// added here, on the floor of its concern.
var rooms = map[string]int{
	"cmd/owt":       entry, // wiring only
	"cmd/owt-popup": entry,
	"cmd/owt-mcp":   entry,

	"internal/cli": commandTable, // Main and the command table, over the command groups

	"internal/cli/worktreecmd": faces, // new, list, send, delete, status, wait, note … of one worktree
	"internal/cli/landcmd":     faces, // bringing work home: check, merge, ship, queue, sync, cleanup, pr
	"internal/cli/runcmd":      faces, // owt run, batch, plan
	"internal/cli/setupcmd":    faces, // tmux init, status line, popups, monitor, completion, uninstall; config, tools, templates, notify test
	"internal/cli/mcpcmd":      faces, // owt-mcp's commands: owt mcp (the peers' MCP server), owt memory
	"internal/cli/hostcmd":     faces, // owt host add, list, check, remove
	"popups":                   faces, // one key table per screen

	"internal/cli/cmdutil": commandKit, // what every command shares: factory, streams, exit codes

	"internal/monitor":    drivers, // one per tmux server: the tick
	"internal/run/engine": drivers, // a run's effects, driven by the monitor

	"internal/control":   verbs, // ship, merge, delete: the one path from every face
	"internal/react":     verbs, // reactions: failing checks, CI, reviews, conflicts
	"internal/pane":      verbs, // owt _run, the first process in an agent's pane
	"internal/peers":     verbs, // what owt mcp gives an agent: peers, messages, spawns
	"internal/swarm":     verbs, // a coordinator and role workers in one worktree
	"internal/uninstall": verbs, // owt uninstall: everything owt put on the machine, never a worktree's work
	"internal/resolve":   verbs, // a conflict handed to its agent, in its worktree, and checked

	"internal/lifecycle":    useCases, // create, list, delete, teardown, restart, doctor
	"internal/hosts":        useCases, // agents on other machines over ssh: hosts, probes, owt there
	"internal/status":       useCases, // screen reconciliation, wait, done, why; @owt-status and the summary
	"internal/hook":         useCases, // an event's whole path: owt hook, the record, the bell, the settings in worktrees
	"internal/send":         useCases, // typing into panes, now or when idle (the outbox's courier)
	"internal/notes":        useCases, // owt note
	"internal/memory/facts": useCases, // a repository's facts (SQLite with FTS5) and what owt does with them: inject, mine, consolidate
	"internal/templates":    useCases, // task templates and the session protocol: the first prompt
	"internal/land":         useCases, // bringing work home: check report, merge, ship, queue, check commands, pull requests, the AI review gate
	"keybindings":           useCases, // the plugin's keys

	"internal/workspace": core, // a repository as owt manages it: records, names, paths

	"internal/run":    models, // a run: its plan file, state, evidence and decisions
	"internal/outbox": models, // the message queue
	"internal/agent":  models, // tool profiles, the screen classifier

	"internal/owtlog": support, // owt.log: one slog logger, text or JSON lines
	"internal/memory": support, // owt's door to a repository's memory, which owt-mcp holds
	"internal/usage":  support, // tokens and cost read from the tools' session files, per repo
	"internal/notify": support, // tells the user of a status change through each channel: terminal, desktop, webhook, command
	"internal/daemon": support, // finds, locks and starts a server's monitor; the monitor's bell

	"internal/git":              ground, // the only code that runs git
	"internal/tmux":             ground, // the only code that runs tmux; socket paths
	"internal/forge":            ground, // the only code that runs gh
	"internal/ssh":              ground, // the only code that runs ssh: one shared connection per host, quoting
	"internal/state":            ground, // records, locks, the locked JSON file, the rule of a status change
	"internal/config":           ground, // the config files
	"internal/setup":            ground, // copies, ports, dependency installs
	"internal/opencodedb":       ground, // OpenCode's SQLite database, read for usage (owt-mcp only)
	"internal/ntfy":             ground, // a ntfy server as owt uses it: publish a notice, follow the reply topic, one-shot reply tickets
	"internal/httpcall":         ground, // outbound HTTP requests, made in owt-mcp so owt never links net/http
	"internal/httpcall/nethttp": ground, // the net/http client behind httpcall (owt-mcp and tests only)

	"internal/untrusted":  base, // text owt did not write, made safe to draw or type
	"internal/buildinfo":  base, // which owt this is: version, commit, date
	"internal/proc":       base, // starting a program: context, trace
	"internal/atomicfile": base, // replacing a file atomically
	"internal/fswatch":    base, // which of many watched folders changed: one notifier, bounded, polling past the bound
	"internal/termtheme":  base, // the popups' palettes and the choice among them

	// Not part of owt: the benchmark driver, the end-to-end tests and this
	// plan. They may import anything.
	"internal/bench":               -1,
	"internal/docgen":              -1, // make docs: the generated references and owt.1
	"internal/tools/screenshots":   -1, // make screenshots: a module of its own
	"internal/e2e":                 -1,
	"internal/e2e/fixture":         -1,
	"internal/workspace/worldtest": -1,
	"internal/proc/proctest":       -1,
	"internal/cli/cmdtest":         -1,
	"internal/house":               -1,
	"internal/ntfy/ntfytest":       -1, // a ntfy server on loopback, for tests
}

// sideways are the allowed imports between packages of one floor: from → to.
// Each is one use of another's concern on the same floor; keep them few.
var sideways = map[string][]string{
	"internal/monitor": {"internal/run/engine"}, // the monitor drives each run's engine on its tick

	"internal/peers":   {"internal/control"},                   // an agent's message goes into RECENT, as every face's verbs do
	"internal/control": {"internal/swarm", "internal/resolve"}, // landing checks a swarm tester's edits; ship hands a conflict to resolve

	"internal/lifecycle":    {"internal/hook", "internal/notes", "internal/status", "internal/templates"}, // create writes hook settings, the note and the first prompt, and publishes
	"internal/hosts":        {"internal/lifecycle", "internal/land"},                                      // a host's list, limits and work files, and its check runner: the same rules there
	"internal/memory/facts": {"internal/notes"},                                                           // mining reads the shared note
	"internal/status":       {"internal/hook"},                                                            // owt done finds its agent by the worktree path, as a hook does
	"internal/send":         {"internal/status"},                                                          // a send publishes the status it changed

	"internal/daemon":           {"internal/owtlog"},   // the monitor starts with this run's log format
	"internal/httpcall/nethttp": {"internal/httpcall"}, // the client makes the requests httpcall describes
	"internal/ntfy":             {"internal/httpcall"}, // ntfy's requests go through owt-mcp like every other
	"internal/config":           {"internal/setup"},    // [worktree] link is checked by owt new's own path rule, so config validate refuses what new would
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
	// heavy are the imports of packages whose start-up cost the owt
	// binary must not pay (heavyImports).
	heavy []string
}

// heavyImports set themselves up when a program starts (net/http, the
// MCP SDK, SQLite: about 3 ms together, measured), which every hook and
// status-line run of owt would pay; they belong in owt-mcp or owt-popup.
var heavyImports = []string{"net/http", "github.com/modelcontextprotocol/go-sdk/mcp", "modernc.org/sqlite",
	"github.com/charmbracelet/bubbletea", "github.com/charmbracelet/huh"}

// TestTheOwtBinaryLinksNothingHeavy follows cmd/owt's imports through the
// module and fails on a package that brings in one of heavyImports,
// naming the chain.
func TestTheOwtBinaryLinksNothingHeavy(t *testing.T) {
	root := filepath.Join("..", "..")
	byPath := map[string]pkg{}
	for _, p := range packages(t, root) {
		byPath[p.path] = p
	}
	seen := map[string]bool{}
	var walk func(path string, chain []string)
	walk = func(path string, chain []string) {
		if seen[path] {
			return
		}
		seen[path] = true
		p := byPath[path]
		chain = append(chain, path)
		for _, h := range p.heavy {
			t.Errorf("the owt binary links %s through %s: keep it in owt-mcp or owt-popup", h, strings.Join(chain, " → "))
		}
		for _, imp := range p.imports {
			walk(imp, chain)
		}
	}
	walk("cmd/owt", nil)
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
			for _, h := range heavyImports {
				if imp == h {
					p.heavy = append(p.heavy, h)
				}
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

// TestEveryProgramThatLogsReadsTheLogFormat fails when a program's main
// links owtlog but does not tell it where the user's [log] format comes
// from (owtlog.SetFormatSource): its lines would be text whatever the
// config says.
func TestEveryProgramThatLogsReadsTheLogFormat(t *testing.T) {
	mains, err := filepath.Glob("../../cmd/*/main.go")
	if err != nil || len(mains) == 0 {
		t.Fatalf("no mains under cmd: %v", err)
	}
	for _, main := range mains {
		dir := filepath.Dir(main)
		out, err := exec.Command("go", "list", "-deps", dir).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", dir, err)
		}
		if !slices.Contains(strings.Fields(string(out)), module+"internal/owtlog") {
			continue
		}
		src, err := os.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		sets := strings.Contains(string(src), "owtlog.SetFormatSource(")
		if !sets {
			t.Errorf("%s links owtlog but its main never calls owtlog.SetFormatSource: its log lines would ignore [log] format", dir)
		}
	}
}
