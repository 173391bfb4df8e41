// Package uninstall is owt uninstall: it finds everything owt put on this
// machine — its programs and the links to them, its state, caches, data
// and logs, the lines it added to repositories' info/exclude, its hooks in
// worktrees' settings files and in Codex's hooks file, its keys, options
// and monitor on tmux servers — and removes it, never a worktree that
// holds work and never from under a running agent: while one exists it
// lists them with how to land or delete each, and removes nothing
// (KeepWorktrees leaves them in place instead). The user's tmux.conf is
// never edited: the lines to remove are named. Find changes nothing, so
// a dry run is Find alone.
package uninstall

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
	"github.com/owt-tmux/owt/keybindings"
)

// Programs are owt's programs, installed side by side (owt-hook: what an
// older owt had beside them).
var Programs = []string{"owt", "owt-popup", "owt-mcp", "owt-wait", "owt-hook"}

// Options say what owt uninstall was asked for.
type Options struct {
	// KeepWorktrees leaves the worktrees that hold work or a running
	// agent in place (owt's hooks taken out of them) instead of refusing.
	KeepWorktrees bool
	// Self is the running owt, symlinks resolved: its folder is where the
	// programs are removed from.
	Self string
	// Tmux is the server owt talks to: its keys, options and monitor go.
	Tmux *tmux.Client
	// Home is the user's home folder (~/.tmux.conf, ~/.local/bin).
	Home string
}

// Agent is an agent worktree owt uninstall found.
type Agent struct {
	Repo    string `json:"repo"`
	Name    string `json:"name"`
	Path    string `json:"path"`
	Branch  string `json:"branch"`
	Work    string `json:"work,omitempty"` // what deleting it would lose
	Running bool   `json:"running,omitempty"`
	// Land and Delete are the commands that land it or delete it, run in
	// Repo.
	Land   string `json:"land,omitempty"`
	Delete string `json:"delete,omitempty"`

	rec *state.Record
	ws  *workspace.Workspace
}

// Exclude is a repository's info/exclude and owt's lines in it.
type Exclude struct {
	File  string   `json:"file"`
	Lines []string `json:"lines"`
	// Kept says why the lines stay (a kept worktree needs them).
	Kept string `json:"kept,omitempty"`
}

// Plan is everything owt uninstall removes, and what blocks it.
type Plan struct {
	Programs []string `json:"programs"`
	Links    []string `json:"links"`
	Dirs     []string `json:"dirs"`
	// Config is the user's config file, kept.
	Config string `json:"config_kept,omitempty"`
	// PluginLines are the lines of the user's tmux config that load owt
	// ("FILE:LINE: text"): to remove by hand.
	PluginLines []string `json:"plugin_lines"`
	// Blocked are the agents with work or running, which stop the
	// uninstall unless KeepWorktrees; Kept are the same, kept.
	Blocked []Agent `json:"blocked"`
	Kept    []Agent `json:"kept"`
	// Deleted are the agents without work and not running: removed as
	// owt delete removes them (session, worktree, branch, record).
	Deleted []Agent `json:"deleted"`
	// HookFiles are the settings files of kept worktrees owt's hooks
	// come out of.
	HookFiles []string  `json:"hook_files"`
	Excludes  []Exclude `json:"excludes"`
	// CodexHooks is Codex's user hooks file, when it holds owt's hooks.
	CodexHooks string `json:"codex_hooks,omitempty"`
	// Keys are owt's keys bound on this tmux server ("table:key");
	// Options its global options set there.
	Keys    []string `json:"tmux_keys"`
	Options []string `json:"tmux_options"`
	// Monitors are the pids of owt's monitors, one per tmux server.
	Monitors []int `json:"monitors"`

	repos   []*workspace.Workspace
	sockets []string
}

// ErrBlocked is Apply's answer while an agent holds work or runs.
var ErrBlocked = errors.New("agents hold work or are running")

// globalOptions are the global user options owt sets on a tmux server.
var globalOptions = []string{keybindings.OptBound, status.OptStatusLine, status.OptRuns, status.OptRestore,
	"@owt-popup-fallback-shown", "@owt-bootstrap-error"}

// Find lists what owt uninstall would remove, and what blocks it. It
// changes nothing.
func Find(o Options) (*Plan, error) {
	p := &Plan{}
	p.findPrograms(o)
	p.findDirs()
	p.PluginLines = pluginLines(o.Home)
	if err := p.findAgents(o); err != nil {
		return nil, err
	}
	p.findCodex()
	p.findTmux(o)
	// Lists, never null, in --json.
	for _, l := range []*[]string{&p.Programs, &p.Links, &p.Dirs, &p.PluginLines, &p.HookFiles, &p.Keys, &p.Options} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]Agent{&p.Blocked, &p.Kept, &p.Deleted} {
		if *l == nil {
			*l = []Agent{}
		}
	}
	if p.Excludes == nil {
		p.Excludes = []Exclude{}
	}
	if p.Monitors == nil {
		p.Monitors = []int{}
	}
	return p, nil
}

func (p *Plan) findPrograms(o Options) {
	if o.Self == "" {
		return
	}
	dir := filepath.Dir(o.Self)
	for _, name := range Programs {
		path := filepath.Join(dir, name)
		if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
			p.Programs = append(p.Programs, path)
		}
	}
	// Links to them: ~/.local/bin (@owt-link-bin on), or the folder
	// @owt-link-bin names.
	linkDirs := []string{filepath.Join(o.Home, ".local", "bin")}
	if o.Tmux != nil {
		if v, err := o.Tmux.ShowOption("", "@owt-link-bin"); err == nil && filepath.IsAbs(v) {
			linkDirs = append(linkDirs, v)
		}
	}
	for _, ld := range slices.Compact(linkDirs) {
		if ld == dir || o.Home == "" && !filepath.IsAbs(ld) {
			continue
		}
		for _, name := range Programs {
			path := filepath.Join(ld, name)
			target, err := os.Readlink(path)
			if err != nil {
				continue // not there, or not a link: never ours to remove
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(ld, target)
			}
			if filepath.Base(target) == name && filepath.Dir(target) == dir {
				p.Links = append(p.Links, path)
			}
		}
	}
}

// Dirs are the folders of owt's state (the records, the log), caches,
// data (the memory) and runtime files.
func Dirs() []string {
	return []string{state.Dir(), filepath.Join(xdg.CacheHome, "owt"), filepath.Join(xdg.DataHome, "owt"),
		filepath.Join(xdg.RuntimeDir, "owt"), filepath.Join(os.TempDir(), "owt-"+strconv.Itoa(os.Getuid()))}
}

func (p *Plan) findDirs() {
	for _, d := range Dirs() {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			p.Dirs = append(p.Dirs, d)
		}
	}
	if path := config.UserFile(); path != "" {
		if _, err := os.Stat(path); err == nil {
			p.Config = path
		}
	}
}

// pluginLines are the lines of the user's tmux config files that load
// owt or set its options.
func pluginLines(home string) []string {
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".tmux.conf"))
	}
	files = append(files, filepath.Join(xdg.ConfigHome, "tmux", "tmux.conf"))
	var out []string
	for _, f := range slices.Compact(files) {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if ownLine(line) {
				out = append(out, fmt.Sprintf("%s:%d: %s", f, n, strings.TrimSpace(line)))
			}
		}
		fh.Close()
	}
	return out
}

func ownLine(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "#") {
		return false
	}
	return strings.Contains(t, "@plugin") && strings.Contains(t, "owt") ||
		strings.Contains(t, "@owt-") || strings.Contains(t, "owt tmux init") ||
		strings.Contains(t, "owt.tmux") || strings.Contains(t, status.StatusPlaceholder)
}

// findAgents sorts every agent of every repository owt knows into
// blocked (or kept) and deleted, and finds owt's lines in each
// repository's info/exclude.
func (p *Plan) findAgents(o Options) error {
	stores, err := state.Stores()
	if err != nil {
		return err
	}
	sort.Slice(stores, func(i, j int) bool { return stores[i].Repo < stores[j].Repo })
	sockets := map[string]bool{}
	for _, s := range stores {
		if _, err := os.Stat(s.Repo); err != nil {
			continue // the repository is gone: its record goes with the state
		}
		ws, _ := workspace.OpenRoot(s.Repo, o.Tmux) // a bad config falls back to the defaults
		f, err := s.Peek()
		if err != nil {
			return fmt.Errorf("read the state of %s: %w", s.Repo, err)
		}
		p.repos = append(p.repos, ws)
		kept := false
		for _, r := range f.Sorted() {
			if r.Socket != "" {
				sockets[r.Socket] = true
			}
			if r.Swarm != nil {
				continue // a swarm worker goes with its worktree's agent
			}
			a := Agent{Repo: s.Repo, Name: r.Name, Path: r.Path, Branch: r.Branch, rec: r, ws: ws}
			a.Running = ws.AgentAlive(r)
			if loss, err := lifecycle.Of(ws).WhatWouldBeLost(r); err != nil {
				a.Work = fmt.Sprintf("owt cannot tell what it holds (%v)", err)
			} else if !loss.Empty() {
				a.Work = loss.String()
			}
			if a.Work == "" && !a.Running {
				p.Deleted = append(p.Deleted, a)
				continue
			}
			if !r.InPlace {
				a.Land = "owt merge " + r.Name
			}
			a.Delete = "owt delete " + r.Name
			if a.Work != "" {
				a.Delete = "owt delete --force " + r.Name
			}
			if !o.KeepWorktrees {
				p.Blocked = append(p.Blocked, a)
				continue
			}
			p.Kept = append(p.Kept, a)
			kept = true
			for _, h := range r.HookFiles {
				p.HookFiles = append(p.HookFiles, filepath.Join(r.Path, filepath.FromSlash(h.Path)))
			}
		}
		if ex, ok := excludesOf(ws); ok {
			if kept {
				ex.Kept = "its kept worktrees need them to keep owt's files out of their commits"
			}
			p.Excludes = append(p.Excludes, ex)
		}
	}
	if o.Tmux != nil {
		sockets[o.Tmux.ServerSocket()] = true
	}
	for s := range sockets {
		p.sockets = append(p.sockets, s)
	}
	sort.Strings(p.sockets)
	for _, s := range p.sockets {
		if pid := daemon.RunningPID(s); pid > 0 {
			p.Monitors = append(p.Monitors, pid)
		}
	}
	return nil
}

// ownPatterns are the lines owt writes into ws's info/exclude: its
// tools' hook settings files, the links of [worktree] link, the shared
// note's files.
func ownPatterns(ws *workspace.Workspace) map[string]bool {
	own := map[string]bool{}
	for _, spec := range agent.HookFiles {
		own["/"+spec.Path] = true
	}
	for _, l := range ws.Config.Worktree.Link {
		own["/"+filepath.ToSlash(filepath.Clean(l))] = true
	}
	if ex, err := notes.Of(ws).Excludes(); err == nil {
		for _, e := range ex {
			own[e] = true
		}
	}
	return own
}

// excludeHeader is the comment owt writes once above its lines (see
// git.AddExcludes): owt's lines are the ones of its patterns below it.
const excludeHeader = "# owt"

// excludesOf finds owt's lines in ws's info/exclude: the header and, below
// it, the lines of owt's patterns. A line above the header, or of a
// pattern owt does not write, is the user's.
func excludesOf(ws *workspace.Workspace) (Exclude, bool) {
	path, err := ws.Repo.ExcludeFile()
	if err != nil {
		return Exclude{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Exclude{}, false
	}
	own := ownPatterns(ws)
	ex := Exclude{File: path}
	below := false
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case !below && l == excludeHeader:
			below = true
			ex.Lines = append(ex.Lines, l)
		case below && own[l]:
			ex.Lines = append(ex.Lines, l)
		}
	}
	return ex, len(ex.Lines) > 0
}

// removeExcludeLines rewrites ex.File without owt's lines, keeping every
// other byte as it was.
func removeExcludeLines(path string, own map[string]bool) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	var kept strings.Builder
	below := false
	for _, l := range strings.SplitAfter(string(data), "\n") {
		bare := strings.TrimRight(l, "\r\n")
		switch {
		case l == "":
			continue
		case !below && bare == excludeHeader:
			below = true
			continue
		case below && own[bare]:
			continue
		}
		kept.WriteString(l)
	}
	if kept.String() == string(data) {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	tmp := path + ".owt-uninstall"
	if err := os.WriteFile(tmp, []byte(kept.String()), fi.Mode().Perm()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func (p *Plan) findCodex() {
	path := agent.CodexHooksPath()
	if data, err := os.ReadFile(path); err == nil && agent.HasOwtHooks(data) {
		p.CodexHooks = path
	}
}

func (p *Plan) findTmux(o Options) {
	if o.Tmux == nil || !o.Tmux.Running() {
		return
	}
	formats := make([]string, len(globalOptions))
	for i, n := range globalOptions {
		formats[i] = "#{" + n + "}"
	}
	vals, err := o.Tmux.Values(formats...)
	if err != nil {
		return
	}
	for _, b := range keybindings.DecodeBound(vals[0]) {
		p.Keys = append(p.Keys, b.Table+":"+b.Key)
	}
	for i, n := range globalOptions {
		if vals[i] != "" {
			p.Options = append(p.Options, n)
		}
	}
	for _, name := range []string{"status-left", "status-right"} {
		if v, err := o.Tmux.ShowOption("", name); err == nil && strings.Contains(v, status.StatusFormat) {
			p.Options = append(p.Options, name+" (owt's status segment)")
		}
	}
}

// Apply removes what p found. While an agent holds work or runs and
// KeepWorktrees was not given it returns ErrBlocked and removes nothing.
// It goes on past a step that fails, and returns every failure.
func (p *Plan) Apply(o Options) error {
	if len(p.Blocked) > 0 {
		return ErrBlocked
	}
	var errs []error
	note := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	// The monitors first: one would write the state again.
	for _, pid := range p.Monitors {
		note(stop(pid))
	}
	for _, a := range p.Deleted {
		if err := lifecycle.Of(a.ws).Delete(a.Name, lifecycle.DeleteOptions{}); err != nil {
			note(fmt.Errorf("delete %s of %s: %w", a.Name, a.Repo, err))
		}
	}
	for _, a := range p.Kept {
		for _, err := range hook.WithdrawHooks(a.rec) {
			note(fmt.Errorf("take owt's hooks out of %s: %w", a.Path, err))
		}
	}
	for _, ws := range p.repos {
		if ex, ok := excludesOf(ws); ok && !slices.ContainsFunc(p.Kept, func(a Agent) bool { return a.Repo == ws.Repo.Root }) {
			note(removeExcludeLines(ex.File, ownPatterns(ws)))
		}
	}
	if p.CodexHooks != "" {
		if _, _, err := hook.RemoveCodexHooks(); err != nil {
			note(fmt.Errorf("take owt's hooks out of Codex's hooks file: %w", err))
		}
	}
	note(p.clearTmux(o))
	for _, d := range p.Dirs {
		if err := os.RemoveAll(d); err != nil {
			note(fmt.Errorf("remove %s: %w", d, err))
		}
	}
	for _, path := range append(slices.Clone(p.Links), p.Programs...) {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			note(fmt.Errorf("remove %s: %w", path, err))
		}
	}
	return errors.Join(errs...)
}

// clearTmux unbinds owt's keys on this server, unsets its options and
// takes its status segment out of status-left and status-right.
func (p *Plan) clearTmux(o Options) error {
	if o.Tmux == nil || len(p.Keys) == 0 && len(p.Options) == 0 {
		return nil
	}
	var cmds [][]string
	for _, k := range p.Keys {
		table, key, _ := strings.Cut(k, ":")
		cmds = append(cmds, tmux.UnbindCommand(table, key))
	}
	for _, n := range globalOptions {
		cmds = append(cmds, []string{"set-option", "-gqu", n})
	}
	for _, name := range []string{"status-left", "status-right"} {
		if v, err := o.Tmux.ShowOption("", name); err == nil && strings.Contains(v, status.StatusFormat) {
			cmds = append(cmds, []string{"set-option", "-g", name, strings.ReplaceAll(v, status.StatusFormat, "")})
		}
	}
	if _, err := o.Tmux.RunBatch(cmds...); err != nil {
		// One by one, so a key tmux cannot unbind keeps none of the rest.
		var errs []error
		for _, c := range cmds {
			if _, err := o.Tmux.Run(c...); err != nil && c[0] != "unbind-key" {
				errs = append(errs, fmt.Errorf("tmux %s: %w", strings.Join(c[:min(len(c), 3)], " "), err))
			}
		}
		return errors.Join(errs...)
	}
	_ = o.Tmux.RefreshStatus()
	return nil
}

// stop ends an owt monitor and waits (up to 3 s) until it is gone.
func stop(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("stop owt's monitor (pid %d): %w", pid, err)
	}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return nil
		}
	}
	return fmt.Errorf("owt's monitor (pid %d) did not stop", pid)
}
