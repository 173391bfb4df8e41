// Package uninstall is owt uninstall: it finds everything owt put on this
// machine — its programs and the links to them, its state, caches, data
// and logs, the lines it added to repositories' info/exclude, its hooks in
// worktrees' settings files and in Codex's hooks file, its keys, options
// and monitor on tmux servers — and removes it, never a worktree that
// holds work and never from under a running agent: while one exists it
// lists them with how to land or delete each, and removes nothing
// (KeepWorktrees leaves them in place, with their records, instead). The
// user's tmux.conf is never edited: the lines to remove are named; the
// user's memory facts and notes stay unless PurgeData. Find changes
// nothing, so a dry run is Find alone.
package uninstall

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/proc"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
	"github.com/owt-tmux/owt/keybindings"
)

// Programs are owt's programs, installed side by side (owt-wait and
// owt-hook: what older owts had beside them).
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
	// PurgeData removes the user's own writing too: the memory's facts
	// and the repositories' notes, which are kept otherwise.
	PurgeData bool
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
	// Git are the commands that land and remove a kept worktree without
	// owt, run as they are.
	Git []string `json:"git,omitempty"`

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

	// Problems are what owt cannot see through (a state file it cannot
	// read, a repository no longer where owt recorded it): each stops
	// the uninstall, with what to do.
	Problems []string `json:"problems"`
	// UserData are the user's own writing owt holds (memory facts,
	// notes): kept unless PurgeData, then removed.
	UserData []string `json:"user_data"`
	// Steps are what Apply did, in order, each with its error; Stopped
	// says why it stopped before the end, and what it left.
	Steps   []Step `json:"steps"`
	Stopped string `json:"stopped,omitempty"`
	// OtherServers are the tmux servers owt's agents ran on other than
	// this one: their keys and options are left as they are.
	OtherServers []string `json:"other_tmux_servers"`
	// OtherOwts are the owt programs on PATH that uninstall leaves.
	OtherOwts []string `json:"other_owts"`

	repos     []*workspace.Workspace
	sockets   []string
	keepPaths []string // under Dirs, left in place
	purge     bool
}

// Step is one thing Apply removed, or failed to.
type Step struct {
	What  string `json:"what"`
	Item  string `json:"item"`
	Error string `json:"error,omitempty"`
}

// ErrStopped is Apply's answer when a step that must come before the
// rest failed: what was left is in Plan.Stopped.
var ErrStopped = errors.New("stopped")

// ErrBlocked is Apply's answer while an agent holds work or runs.
var ErrBlocked = errors.New("agents hold work or are running")

// globalOptions are the global user options owt sets on a tmux server.
var globalOptions = []string{keybindings.OptBound, status.OptStatusLine, status.OptStatusCompact, status.OptRuns, status.OptRestore,
	"@owt-popup-fallback-shown", "@owt-bootstrap-error"}

// withoutSegment is a status-left or status-right without owt's segment,
// this owt's or an earlier one's.
func withoutSegment(v string) string {
	v = strings.ReplaceAll(v, status.StatusFormat, "")
	for _, past := range status.PastStatusFormats {
		v = strings.ReplaceAll(v, past, "")
	}
	return v
}

// Find lists what owt uninstall would remove, and what blocks it. It
// changes nothing.
func Find(o Options) (*Plan, error) {
	p := &Plan{purge: o.PurgeData}
	p.findPrograms(o)
	p.findDirs()
	p.PluginLines = pluginLines(o.Home)
	if err := p.findAgents(o); err != nil {
		return nil, err
	}
	p.findUserData(o)
	p.findCodex()
	p.findTmux(o)
	p.findOtherOwts(o)
	// Lists, never null, in --json.
	for _, l := range []*[]string{&p.Programs, &p.Links, &p.Dirs, &p.PluginLines, &p.HookFiles, &p.Keys, &p.Options,
		&p.Problems, &p.UserData, &p.OtherServers, &p.OtherOwts} {
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
	if p.Steps == nil {
		p.Steps = []Step{}
	}
	return p, nil
}

// findUserData finds the user's own writing: the memory's databases and
// the repositories' notes. Kept unless PurgeData.
func (p *Plan) findUserData(o Options) {
	for _, d := range []struct{ dir, what string }{
		{filepath.Join(xdg.DataHome, "owt", "memory"), "memory database(s): the facts you and your agents saved"},
		{filepath.Join(state.Dir(), "notes"), "note(s): what you wrote with owt note"},
	} {
		entries, err := os.ReadDir(d.dir)
		if err != nil || len(entries) == 0 {
			continue
		}
		p.UserData = append(p.UserData, fmt.Sprintf("%s (%d %s)", d.dir, len(entries), d.what))
		if !o.PurgeData {
			p.keepPaths = append(p.keepPaths, d.dir)
		}
	}
}

// findOtherOwts finds owt programs on PATH other than the ones removed.
func (p *Plan) findOtherOwts(o Options) {
	seen := map[string]bool{}
	for _, s := range append(slices.Clone(p.Programs), p.Links...) {
		seen[s] = true
	}
	if o.Self != "" {
		seen[o.Self] = true
	}
	for _, path := range proc.OnPath("owt", os.Getenv("PATH")) {
		if seen[path] {
			continue
		}
		if real, err := filepath.EvalSymlinks(path); err == nil && seen[real] {
			continue
		}
		seen[path] = true
		p.OtherOwts = append(p.OtherOwts, path)
	}
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
	return append([]string{state.Dir(), filepath.Join(xdg.CacheHome, "owt"), filepath.Join(xdg.DataHome, "owt")}, runtimeDirs()...)
}

// runtimeDirs are the folders of owt's locks and bells where a socket's
// own folder takes none: $XDG_RUNTIME_DIR/owt (with XDG_RUNTIME_DIR
// unset, /run/user/UID/owt, which an owt started with it set shares) and
// the temp folder's.
func runtimeDirs() []string {
	return []string{filepath.Join(xdg.RuntimeDir, "owt"), filepath.Join(os.TempDir(), "owt-"+strconv.Itoa(os.Getuid()))}
}

// inUse are the files in dir a running owt holds: a lock someone has
// taken, a bell socket a monitor listens on. Removing them would cut a
// monitor owt uninstall did not stop (a tmux server it cannot see, such
// as one started with another XDG_RUNTIME_DIR) from its hooks.
func inUse(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&fs.ModeSocket != 0:
			if c, err := net.DialTimeout("unixgram", path, time.Second); err == nil {
				c.Close()
				out = append(out, path)
			}
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".lock"):
			f, err := os.Open(path)
			if err != nil {
				continue
			}
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); errors.Is(err, syscall.EWOULDBLOCK) {
				out = append(out, path)
			}
			f.Close()
		}
	}
	return out
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
	for _, path := range state.UnreadableStores() {
		p.Problems = append(p.Problems, fmt.Sprintf("owt's state file %s cannot be read (corrupt or cut short), so owt cannot tell "+
			"which agents it records: run 'owt list' in its repository, which rebuilds it from git and tmux (or 'owt doctor'), "+
			"then owt uninstall again", path))
	}
	sockets := map[string]bool{}
	known := map[string]bool{} // repo\x00name of every record read, and repo\x00 of every store
	for _, s := range stores {
		known[s.Repo+"\x00"] = true
		if _, err := os.Stat(s.Repo); err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("the repository %s that owt's state file %s records is not there "+
				"(moved or deleted?), and its agents' worktrees and sessions may still be: move it back and run owt uninstall "+
				"again; if it is gone for good, remove %s and run owt uninstall again", s.Repo, s.Path, s.Path))
			continue
		}
		ws, _ := workspace.OpenRoot(s.Repo, o.Tmux) // a bad config falls back to the defaults
		f, err := s.Peek()
		if err != nil {
			p.Problems = append(p.Problems, fmt.Sprintf("owt's state of %s (%s) cannot be read (%v): run 'owt list' in %s, "+
				"which rebuilds it from git and tmux (or 'owt doctor'), then owt uninstall again", s.Repo, s.Path, err, s.Repo))
			continue
		}
		p.repos = append(p.repos, ws)
		kept := false
		for _, r := range f.Sorted() {
			known[s.Repo+"\x00"+r.Name] = true
			if r.Socket != "" {
				sockets[r.Socket] = true
			}
			if r.Swarm != nil {
				continue // a swarm worker goes with its worktree's agent
			}
			a := Agent{Repo: s.Repo, Name: r.Name, Path: r.Path, Branch: r.Branch, rec: r, ws: ws}
			a.Running = ws.AgentAlive(r)
			uncommitted := false
			if loss, err := lifecycle.Of(ws).WhatWouldBeLost(r); err != nil {
				a.Work = fmt.Sprintf("owt cannot tell what it holds (%v)", err)
			} else if !loss.Empty() {
				a.Work = loss.String()
				uncommitted = len(loss.DirtyFiles) > 0
			}
			if ign, err := ignoredWork(ws, r); err != nil {
				a.Work = joinWhy(a.Work, fmt.Sprintf("owt cannot tell which ignored files it holds (%v)", err))
			} else if len(ign) > 0 {
				a.Work = joinWhy(a.Work, "ignored files owt did not put there: "+listSome(ign, 5))
			}
			if a.Work == "" && !a.Running {
				p.Deleted = append(p.Deleted, a)
				continue
			}
			if !r.InPlace {
				// owt merge refuses uncommitted files; owt ship commits
				// them first.
				a.Land = "owt merge " + r.Name
				if uncommitted {
					a.Land = "owt ship " + r.Name
				}
			}
			a.Git = gitCommands(r, a.Running)
			a.Delete = "owt delete " + r.Name
			if a.Work != "" {
				a.Delete = "owt delete --force " + r.Name
			}
			if !o.KeepWorktrees {
				p.Blocked = append(p.Blocked, a)
				continue
			}
			p.Kept = append(p.Kept, a)
			if !kept {
				// Its record stays, so an owt installed again can still
				// land or delete it.
				// The index, the records' folder and a migration's backup.
				for _, path := range s.Files() {
					if _, err := os.Lstat(path); err == nil && !strings.HasSuffix(path, ".lock") {
						p.keepPaths = append(p.keepPaths, path)
					}
				}
			}
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
		here := o.Tmux.ServerSocket()
		for s := range sockets {
			c := &tmux.Client{Bin: "tmux", Socket: s}
			if s == here || !c.Running() {
				continue
			}
			keys := boundKeys(c)
			if len(keys) == 0 {
				continue
			}
			var unbind []string
			for _, k := range keys {
				table, key, _ := strings.Cut(k, ":")
				unbind = append(unbind, "tmux -S "+tmux.ShellQuote(s)+" "+strings.Join(tmux.UnbindCommand(table, key), " "))
			}
			p.OtherServers = append(p.OtherServers, fmt.Sprintf("%s: owt's keys %s stay bound there (to the removed owt) "+
				"until that server ends; or run: %s", s, strings.Join(keys, " "), strings.Join(unbind, "; ")))
		}
		sort.Strings(p.OtherServers)
		sockets[here] = true
	}
	for s := range sockets {
		p.sockets = append(p.sockets, s)
	}
	sort.Strings(p.sockets)
	if !o.KeepWorktrees {
		p.findUnrecorded(known)
	}
	for _, s := range p.sockets {
		if pid := daemon.RunningPID(s); pid > 0 {
			p.Monitors = append(p.Monitors, pid)
		}
	}
	return nil
}

// findUnrecorded finds the sessions owt made (they carry its options) on
// the tmux servers it knows that no record it read holds: an agent may
// run there. Each stops the uninstall, as a running agent does. A session
// of a repository whose state could not be read is that problem's already.
func (p *Plan) findUnrecorded(known map[string]bool) {
	for _, sock := range p.sockets {
		c := &tmux.Client{Bin: "tmux", Socket: sock}
		sessions, err := c.SessionOptions("@owt-name", "@owt-repo", "session_name")
		if err != nil {
			continue
		}
		var found []string
		for _, o := range sessions {
			repo, name := o["@owt-repo"], o["@owt-name"]
			if repo == "" || name == "" || known[repo+"\x00"+name] {
				continue
			}
			if known[repo+"\x00"] && slices.ContainsFunc(p.Problems, func(s string) bool { return strings.Contains(s, repo) }) {
				continue
			}
			found = append(found, fmt.Sprintf("tmux session %s on the server %s is owt's agent %s of %s, which owt has no record of: "+
				"an agent may run there; once its work is safe end it (tmux -S %s kill-session -t %s), or run owt uninstall "+
				"--keep-worktrees to leave it", o["session_name"], sock, name, repo, tmux.ShellQuote(sock), tmux.ShellQuote(o["session_name"])))
		}
		sort.Strings(found)
		p.Problems = append(p.Problems, found...)
	}
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

// boundKeys are owt's keys bound on the server c talks to ("table:key").
func boundKeys(c *tmux.Client) []string {
	v, err := c.ShowOption("", keybindings.OptBound)
	if err != nil {
		return nil
	}
	var out []string
	for _, b := range keybindings.DecodeBound(v) {
		out = append(out, b.Table+":"+b.Key)
	}
	return out
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
	p.Keys = boundKeys(o.Tmux)
	for i, n := range globalOptions {
		if vals[i] != "" {
			p.Options = append(p.Options, n)
		}
	}
	for _, name := range []string{"status-left", "status-right"} {
		if v, err := o.Tmux.ShowOption("", name); err == nil && withoutSegment(v) != v {
			p.Options = append(p.Options, name+" (owt's status segment)")
		}
	}
}

// Apply removes what p found, telling report of each step after it is
// done or failed. While an agent holds work or runs and KeepWorktrees was
// not given, or a Problem stands, it returns ErrBlocked and removes
// nothing. The agents' worktrees go first: when one cannot be deleted it
// stops there (ErrStopped, Plan.Stopped says what was left), so the
// record, the exclude lines and the hooks that worktree needs stay with
// it. Past them it goes on past a step that fails, and returns every
// failure.
func (p *Plan) Apply(o Options, report func(Step)) error {
	if len(p.Blocked) > 0 || len(p.Problems) > 0 {
		return ErrBlocked
	}
	if report == nil {
		report = func(Step) {}
	}
	var errs []error
	step := func(what, item string, err error) {
		st := Step{What: what, Item: item}
		if err != nil {
			st.Error = err.Error()
			errs = append(errs, err)
		}
		p.Steps = append(p.Steps, st)
		report(st)
	}
	var failed []string
	for _, a := range p.Deleted {
		err := lifecycle.Of(a.ws).Delete(a.Name, lifecycle.DeleteOptions{})
		if err != nil {
			err = fmt.Errorf("delete %s of %s: %w", a.Name, a.Repo, err)
			failed = append(failed, a.Name+" ("+a.Path+")")
		}
		step("agent", fmt.Sprintf("%s (%s, branch %s: no work, not running; as owt delete)", a.Name, a.Path, a.Branch), err)
	}
	// The folder owt put the worktrees in (../app.worktrees), once empty.
	emptied := map[string]bool{}
	for _, a := range p.Deleted {
		if d := worktreesFolder(a); d != "" && !emptied[d] {
			if err := os.Remove(d); err == nil {
				emptied[d] = true
				step("dir", d+" (owt's worktrees folder, empty)", nil)
			}
		}
	}
	if len(failed) > 0 {
		p.Stopped = fmt.Sprintf("owt could not delete %s, so it stopped there: that worktree, its record, "+
			"owt's hooks in it and the exclude lines that keep them out of its commits are left as they were, "+
			"and so is the rest of owt (programs, state, keys); see why above, fix it (or delete the worktree with owt delete), "+
			"then run owt uninstall again", strings.Join(failed, ", "))
		return fmt.Errorf("%w: %w", ErrStopped, errors.Join(errs...))
	}
	// The monitors next: one would write the state again.
	for _, pid := range p.Monitors {
		step("monitor", fmt.Sprintf("pid %d", pid), stop(pid))
	}
	for _, a := range p.Kept {
		var herr []error
		for _, err := range hook.WithdrawHooks(a.rec) {
			herr = append(herr, fmt.Errorf("take owt's hooks out of %s: %w", a.Path, err))
		}
		if len(a.rec.HookFiles) > 0 || len(herr) > 0 {
			step("hooks", a.Path+" (owt's hooks only)", errors.Join(herr...))
		}
	}
	for _, ws := range p.repos {
		if ex, ok := excludesOf(ws); ok && !slices.ContainsFunc(p.Kept, func(a Agent) bool { return a.Repo == ws.Repo.Root }) {
			step("exclude", fmt.Sprintf("%s: %s", ex.File, strings.Join(ex.Lines, ", ")), removeExcludeLines(ex.File, ownPatterns(ws)))
		}
	}
	if p.CodexHooks != "" {
		_, _, err := hook.RemoveCodexHooks()
		if err != nil {
			err = fmt.Errorf("take owt's hooks out of Codex's hooks file: %w", err)
		}
		step("hooks", p.CodexHooks+" (owt's hooks only)", err)
	}
	if len(p.Keys) > 0 || len(p.Options) > 0 {
		step("tmux", "keys and options on this server", p.clearTmux(o))
	}
	for _, d := range p.Dirs {
		if slices.Contains(runtimeDirs(), d) {
			if held := inUse(d); len(held) > 0 {
				step("dir", d, fmt.Errorf("left %s: a running owt holds %s (the monitor of a tmux server owt uninstall did not see; end that server, then remove the folder)", d, listSome(held, 3)))
				continue
			}
		}
		err := removeExcept(d, p.keepPaths)
		if err != nil {
			err = fmt.Errorf("remove %s: %w", d, err)
		}
		item := d
		if kept := keptUnder(d, p.keepPaths); len(kept) > 0 {
			item += " (but " + strings.Join(kept, ", ") + ")"
		}
		step("dir", item, err)
	}
	for _, path := range append(slices.Clone(p.Links), p.Programs...) {
		err := os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		if err != nil {
			err = fmt.Errorf("remove %s: %w", path, err)
		}
		step("program", path, err)
	}
	return errors.Join(errs...)
}

// worktreesFolder is the folder of a's worktree when it is where owt puts
// worktrees ([worktree] dir, ../REPO.worktrees/NAME by default) and is
// neither the repository nor the folder that holds it; "" otherwise.
func worktreesFolder(a Agent) string {
	if a.ws == nil || a.rec == nil || a.rec.InPlace {
		return ""
	}
	d := filepath.Dir(filepath.Clean(a.Path))
	root := filepath.Clean(a.ws.Repo.Root)
	if d != filepath.Dir(filepath.Clean(a.ws.WorktreePath(a.Name))) || d == root || d == filepath.Dir(root) ||
		strings.HasPrefix(root, d+string(filepath.Separator)) {
		return ""
	}
	return d
}

// Purged reports whether the user's data goes too (PurgeData).
func (p *Plan) Purged() bool { return p.purge }

// KeptUnder are the paths of p left in place under dir.
func (p *Plan) KeptUnder(dir string) []string { return keptUnder(dir, p.keepPaths) }

func keptUnder(dir string, keep []string) []string {
	var out []string
	for _, k := range keep {
		if k == dir || strings.HasPrefix(k, dir+string(filepath.Separator)) {
			out = append(out, k)
		}
	}
	return out
}

// removeExcept removes dir and everything in it but the paths of keep
// (and the folders that lead to them).
func removeExcept(dir string, keep []string) error {
	inside := keptUnder(dir, keep)
	if len(inside) == 0 {
		return os.RemoveAll(dir)
	}
	if slices.Contains(inside, dir) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if len(keptUnder(path, inside)) > 0 {
			if e.IsDir() {
				errs = append(errs, removeExcept(path, inside))
			}
			continue
		}
		errs = append(errs, os.RemoveAll(path))
	}
	return errors.Join(errs...)
}

// ignoredWork are the ignored files in r's worktree that owt did not put
// there: not a copy owt made (an edited copy is work already, in the
// loss), not a link of [worktree] link, not owt's hook settings or note.
// No commit holds them and owt delete does not count them, but the user
// asked to remove a tool, not these: they keep the worktree.
func ignoredWork(ws *workspace.Workspace, r *state.Record) ([]string, error) {
	if r.InPlace {
		return nil, nil // the user's own checkout: nothing of it is removed
	}
	if _, err := os.Stat(r.Path); err != nil {
		return nil, nil
	}
	files, err := git.IgnoredFiles(r.Path)
	if err != nil {
		return nil, err
	}
	own := ownPatterns(ws)
	for _, c := range r.Copied {
		own["/"+c] = true
	}
	for _, h := range r.HookFiles {
		own["/"+h.Path] = true
	}
	// The dependency folders owt's install made (node_modules, .venv,
	// vendor): downloaded from the manifest and lockfile, no work. One
	// the user or the agent made is theirs, and keeps the worktree.
	for _, d := range r.SetupDirs {
		own["/"+d] = true
	}
	var out []string
	for _, f := range files {
		if own["/"+f] || underOwn(f, own) {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// underOwn reports whether f is inside a folder owt put there (a linked
// or copied folder).
func underOwn(f string, own map[string]bool) bool {
	for d := f; ; {
		i := strings.LastIndexByte(d, '/')
		if i < 0 {
			return false
		}
		d = d[:i]
		if own["/"+d] {
			return true
		}
	}
}

func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// gitCommands land and remove r's worktree (or give the checkout back
// to its base), and end its session while it runs, with git and tmux
// alone, for when owt is gone.
func gitCommands(r *state.Record, running bool) []string {
	q := tmux.ShellQuote
	var out []string
	if r.InPlace {
		if r.Base != "" {
			out = append(out, fmt.Sprintf("git -C %s switch %s", q(r.Repo), q(r.Base)))
		}
	} else {
		out = append(out, fmt.Sprintf("git -C %s merge %s", q(r.Repo), q(r.Branch)),
			fmt.Sprintf("git -C %s worktree remove %s", q(r.Repo), q(r.Path)),
			fmt.Sprintf("git -C %s branch -d %s", q(r.Repo), q(r.Branch)))
	}
	if running && r.Session != "" {
		kill := "tmux kill-session -t " + q(r.Session)
		if r.Socket != "" {
			kill = "tmux -S " + q(r.Socket) + " kill-session -t " + q(r.Session)
		}
		out = append(out, kill)
	}
	return out
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
		if v, err := o.Tmux.ShowOption("", name); err == nil && withoutSegment(v) != v {
			cmds = append(cmds, []string{"set-option", "-g", name, withoutSegment(v)})
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
