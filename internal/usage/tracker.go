package usage

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/owt-tmux/owt/internal/config"
)

// Source is one agent as the tracker reads it: its record's figures.
type Source struct {
	Repo, Name string
	Tool       string // claude, codex, gemini (others have no usage owt reads)
	Dir        string // its worktree: the tool's cwd
	// Transcript is the session file its hooks named (Claude's
	// transcript_path), if any.
	Transcript string
	// Since is when the agent was made: older session files in its
	// folder are not its.
	Since time.Time
	// Life is the agent's own id (its record's): another agent given
	// the same name later is another life, with usage of its own.
	Life string
	// Sessions are the tool session ids its hooks named in this life:
	// once there are some, a session file in its folder is its only when
	// it is one of them (an earlier agent's of the same name is not).
	Sessions []string
	// Shared: other agents work in Dir too (a swarm): only Transcript
	// tells its files from theirs.
	Shared bool
	// Recovered: the record was rebuilt after its state file was lost
	// (its Since is the rebuild's): the same agent, not a new one.
	Recovered bool
}

// Default bounds of one tick's reading.
const (
	DefaultTickBytes = 8 << 20 // every file together
	DefaultFileBytes = 2 << 20 // one file
	codexDaysBack    = 14      // the oldest day folder of Codex sessions looked in
)

// Tracker reads the agents' session files, a tick at a time, into the
// repositories' usage files. One monitor holds one; it is not safe for
// concurrent use.
type Tracker struct {
	// Home is the user's home ("" is $HOME); ClaudeDir ($CLAUDE_CONFIG_DIR
	// or ~/.claude), CodexHome ($CODEX_HOME or ~/.codex) and GeminiDir
	// ($GEMINI_CLI_HOME/.gemini or ~/.gemini) follow from it unless set.
	Home, ClaudeDir, CodexHome, GeminiDir string
	// Prices are the prices of a repository's config.
	Prices func(repo string) map[string]config.Price
	// OpenCode answers questions to OpenCode's database (OpenCodeDB; ""
	// is where OpenCode keeps it): the monitor runs owt-mcp, which links
	// SQLite. Nil: OpenCode's usage is not read.
	OpenCode   func(ctx context.Context, db string, qs []OpenCodeQuery) ([]OpenCodeRow, error)
	OpenCodeDB string
	// TickBytes and FileBytes bound what one tick reads.
	TickBytes, FileBytes int64
	Logf                 func(string, ...any)

	repos map[string]*File
	// limitsMod is when each agent's Claude windows file (LimitsPath)
	// was last read, by its path.
	limitsMod map[string]int64
	codex     map[string]string // rollout file → its session's cwd
	priced    map[string]string // repository → the prices its costs were worked out at
}

func (t *Tracker) init() {
	if t.repos != nil {
		return
	}
	t.repos, t.codex, t.priced = map[string]*File{}, map[string]string{}, map[string]string{}
	if t.Home == "" {
		t.Home, _ = os.UserHomeDir()
	}
	if t.ClaudeDir == "" {
		t.ClaudeDir = os.Getenv("CLAUDE_CONFIG_DIR")
		if t.ClaudeDir == "" {
			t.ClaudeDir = filepath.Join(t.Home, ".claude")
		}
	}
	if t.CodexHome == "" {
		t.CodexHome = os.Getenv("CODEX_HOME")
		if t.CodexHome == "" {
			t.CodexHome = filepath.Join(t.Home, ".codex")
		}
	}
	if t.GeminiDir == "" {
		home := os.Getenv("GEMINI_CLI_HOME") // gemini-cli 0.61.0's homedir()
		if home == "" {
			home = t.Home
		}
		t.GeminiDir = filepath.Join(home, ".gemini")
	}
	if t.TickBytes <= 0 {
		t.TickBytes = DefaultTickBytes
	}
	if t.FileBytes <= 0 {
		t.FileBytes = DefaultFileBytes
	}
	if t.Logf == nil {
		t.Logf = func(string, ...any) {}
	}
}

// Tick reads what the agents' session files gained since the last tick,
// at most TickBytes, and writes the usage files of the repositories whose
// figures changed. It reports the bytes read and whether reading stopped
// at the budget (the rest waits for the next tick).
func (t *Tracker) Tick(srcs []Source, now time.Time) (read int64, more bool) {
	t.init()
	var codexFiles map[string][]string // cwd → rollout files
	byRepo := map[string][]Source{}
	for _, s := range srcs {
		byRepo[s.Repo] = append(byRepo[s.Repo], s)
		if s.Tool == FormatCodex && codexFiles == nil {
			codexFiles = t.codexSessions(srcs, now)
		}
	}
	for repo, list := range byRepo {
		f := t.repo(repo)
		var changed []string
		var openCode []Source
		// Prices changed in the config (or this tracker is new): every
		// agent's cost is worked out again.
		prices := t.prices(repo)
		fp := fingerprint(prices)
		repriced := t.priced[repo] != fp
		t.priced[repo] = fp
		readers := readersOf(f)
		for _, s := range list {
			a := f.Agents[s.Name]
			if a != nil && s.Recovered && !a.Since.IsZero() {
				s.Since = a.Since // rebuilt: the agent it always was, its files read once
			}
			if a != nil && otherLife(a, s) {
				// Another agent of the same name (the first was deleted):
				// the first one's spend stays, under its own key.
				earlier := s.Name + "@" + a.Since.Local().Format("2006-01-02T15:04:05")
				f.Agents[earlier] = a
				readers.rename(a, s.Name, earlier)
				changed = append(changed, earlier)
				a = nil
			}
			if a == nil {
				a = &Agent{Tool: s.Tool, Since: s.Since, Life: s.Life, Files: map[string]*FileState{}, Days: Days{}}
				f.Agents[s.Name] = a
				changed = append(changed, s.Name)
			}
			if a.Files == nil {
				a.Files = map[string]*FileState{}
			}
			if s.Tool == FormatOpenCode && !s.Shared {
				openCode = append(openCode, s)
			}
			t.discover(a, s, codexFiles, readers)
			grew := false
			for path, fst := range a.Files {
				if fst.Format == FormatOpenCode {
					continue // asked below, not read
				}
				budget := min(t.FileBytes, t.TickBytes-read)
				if budget <= 0 {
					more = true
					break
				}
				rejected := fst.Rejected
				res, err := fst.Read(path, budget, now)
				if res.Restarted {
					rejected = 0 // counted again from the start
				}
				if n := fst.Rejected - rejected; n > 0 {
					t.Logf("usage of %s: skipped %d entries of %s with impossible token counts (the last: %s)", s.Name, n, path, fst.Why)
				}
				if err != nil {
					if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, errNotRegular) {
						t.Logf("usage of %s: %v", s.Name, err)
					}
					continue
				}
				read += res.Bytes
				more = more || res.More
				if res.Bytes > 0 || res.Restarted {
					grew = true
				}
			}
			limited := t.limits(a, s)
			if grew || repriced || a.Tool != s.Tool || a.Since.IsZero() && !s.Since.IsZero() || a.Life != s.Life {
				a.Tool, a.Since, a.Life = s.Tool, s.Since, s.Life
				a.sum(prices)
				a.Updated = now
				changed = append(changed, s.Name)
			} else if limited {
				changed = append(changed, s.Name)
			}
		}
		for _, name := range t.openCode(openCode, f.Agents) {
			a := f.Agents[name]
			a.sum(prices)
			a.Updated = now
			changed = append(changed, name)
		}
		if len(changed) > 0 || t.lost(repo, f) {
			t.save(repo, f, changed)
		}
	}
	return read, more
}

// Limits are the usage windows of agent name of repo as this tracker
// last read them; read is false before it read that repository.
func (t *Tracker) Limits(repo, name string) (ls Limits, read bool) {
	f, ok := t.repos[repo]
	if !ok || f == nil {
		return nil, false
	}
	if a := f.Agents[name]; a != nil {
		return a.Limits, true
	}
	return nil, true
}

// limits takes into a the usage windows its tool reported last: Codex's
// from its session files, Claude's from the file its statusLine command
// keeps. It reports whether they changed.
func (t *Tracker) limits(a *Agent, s Source) bool {
	ls := a.Limits
	for _, f := range a.Files {
		if f.Format == FormatCodex {
			ls = newest(ls, f.Limits)
		}
	}
	if s.Tool == FormatClaude {
		if t.limitsMod == nil {
			t.limitsMod = map[string]int64{}
		}
		path := LimitsPath(s.Repo, s.Name)
		got, mod, ok := claudeLimits(s, t.limitsMod[path])
		t.limitsMod[path] = mod
		if ok {
			ls = newest(ls, got)
		}
	}
	if len(ls) == len(a.Limits) && (len(ls) == 0 || sameWindows(ls, a.Limits) && ls[0].SeenAt.Equal(a.Limits[0].SeenAt)) {
		return false
	}
	a.Limits = ls
	return true
}

// fingerprint sums up a price table.
func fingerprint(prices map[string]config.Price) string {
	names := make([]string, 0, len(prices))
	for n := range prices {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%v\x00", n, prices[n])
	}
	return b.String()
}

func (t *Tracker) prices(repo string) map[string]config.Price {
	if t.Prices == nil {
		return config.DefaultPrices()
	}
	return t.Prices(repo)
}

// repo is the usage of repo as this tracker knows it: read from its file
// the first time, so a new monitor goes on from the offsets kept there.
func (t *Tracker) repo(repo string) *File {
	if f, ok := t.repos[repo]; ok {
		return f
	}
	f, err := ForRepo(repo).LoadAll()
	if err != nil {
		t.Logf("%v", err)
	}
	t.repos[repo] = f
	return f
}

// lost reports whether repo's usage file lacks an agent this tracker
// knows: it was found corrupt (and read as empty) or removed since.
func (t *Tracker) lost(repo string, mine *File) bool {
	disk, err := ForRepo(repo).Load()
	if err != nil {
		return true
	}
	for n := range mine.Agents {
		if _, ok := disk.Agents[n]; !ok {
			return true
		}
	}
	return false
}

// save writes the changed agents into repo's usage file, keeping what
// other monitors wrote for their agents, and putting back the ones of
// this tracker the file lost (a corrupt file reads as empty).
func (t *Tracker) save(repo string, mine *File, names []string) {
	err := ForRepo(repo).Update(func(f *File) (bool, error) {
		for _, n := range names {
			f.Agents[n] = mine.Agents[n]
		}
		for n, a := range mine.Agents {
			if _, ok := f.Agents[n]; !ok {
				f.Agents[n] = a
			}
		}
		return true, nil
	})
	if err != nil {
		t.Logf("usage of %s: %v", repo, err)
	}
}

// otherLife reports whether the usage a kept under s's name is another
// agent's: an earlier one given the same name. Their lives tell; for
// usage kept before lives, the time each was made.
func otherLife(a *Agent, s Source) bool {
	if a.Life != "" && s.Life != "" {
		return a.Life != s.Life
	}
	return !a.Since.IsZero() && !s.Since.IsZero() && !a.Since.Equal(s.Since)
}

// fileReaders are, for each session file of a repository's agents, the
// agents that read it (one, mostly): built once a tick, not once an agent
// (at 500 agents, a map of every file for each agent was a quarter of
// the monitor's CPU).
type fileReaders map[string][]string

func readersOf(f *File) fileReaders {
	r := fileReaders{}
	for n, a := range f.Agents {
		if a == nil {
			continue
		}
		for p := range a.Files {
			r[p] = append(r[p], n)
		}
	}
	return r
}

// claimed reports whether an agent other than name (an earlier life of
// name among them) read path: then it is not name's.
func (r fileReaders) claimed(path, name string) bool {
	for _, n := range r[path] {
		if n != name {
			return true
		}
	}
	return false
}

// rename has a's files read by to, no longer by from.
func (r fileReaders) rename(a *Agent, from, to string) {
	for p := range a.Files {
		for i, n := range r[p] {
			if n == from {
				r[p][i] = to
			}
		}
	}
}

// ownSession reports whether the session file at path, found in s's
// folder, is one of s's sessions: any while its hooks named none (then
// only its age and claimed tell), else only those they named. Claude
// names a transcript after its session id; Codex ends a rollout's name
// with it.
func ownSession(s Source, path string) bool {
	if len(s.Sessions) == 0 {
		return true
	}
	base := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	for _, id := range s.Sessions {
		if base == id || strings.HasSuffix(base, "-"+id) {
			return true
		}
	}
	return false
}

// ownCodexSession reports whether the rollout at path is of one of s's
// sessions by the id its session_meta gives.
func ownCodexSession(s Source, path string) bool {
	id, _ := codexMeta(path)
	return id != "" && slices.Contains(s.Sessions, id)
}

// discover adds the session files of s that a has not read yet; files
// another agent read (readers) are not s's.
func (t *Tracker) discover(a *Agent, s Source, codexFiles map[string][]string, readers fileReaders) {
	add := func(path, format string) {
		if _, ok := a.Files[path]; !ok && path != "" && !readers.claimed(path, s.Name) {
			a.Files[path] = &FileState{Format: format, Days: Days{}}
			readers[path] = append(readers[path], s.Name)
		}
	}
	switch s.Tool {
	case FormatClaude:
		if s.Transcript != "" {
			add(s.Transcript, FormatClaude)
		}
		if !s.Shared {
			for _, p := range recentFiles(filepath.Join(t.ClaudeDir, "projects", ClaudeProject(s.Dir)), ".jsonl", s.Since) {
				if ownSession(s, p) {
					add(p, FormatClaude)
				}
			}
		}
		// A session's subagents write beside it:
		// <session>/subagents/agent-<id>.jsonl.
		for p, fst := range a.Files {
			if fst.Format == FormatClaude && !strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
				for _, sub := range recentFiles(filepath.Join(strings.TrimSuffix(p, ".jsonl"), "subagents"), ".jsonl", s.Since) {
					add(sub, FormatClaude)
				}
			}
		}
	case FormatCodex:
		if !s.Shared {
			for _, p := range codexFiles[s.Dir] {
				if _, known := a.Files[p]; known {
					continue
				}
				// The rollout's name ends with its session id; its
				// session_meta says it too, should a version name it
				// otherwise.
				if ownSession(s, p) || ownCodexSession(s, p) {
					add(p, FormatCodex)
				}
			}
		}
	case FormatGemini:
		if !s.Shared {
			for _, dir := range t.geminiDirs(s.Dir) {
				for _, p := range recentFiles(filepath.Join(dir, "chats"), ".jsonl", s.Since) {
					add(p, FormatGemini)
				}
			}
		}
	}
}

// ClaudeProject is the folder name Claude Code keeps a cwd's transcripts
// under: every UTF-16 unit of the path but ASCII letters and digits
// turned into '-'; past 200 characters, the first 200, '-' and the
// path's Java-style string hash in base 36 (Claude Code 2.1.332's
// bundle: replace(/[^a-zA-Z0-9]/g,"-"), slice(0,200), Math.abs(hash)).
func ClaudeProject(dir string) string {
	units := utf16.Encode([]rune(dir))
	b := make([]byte, len(units))
	var h int32
	for i, u := range units {
		b[i] = '-'
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b[i] = byte(u)
		}
		h = h<<5 - h + int32(u)
	}
	if len(b) <= claudeProjectMax {
		return string(b)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(b[:claudeProjectMax]) + "-" + strconv.FormatInt(abs, 36)
}

const claudeProjectMax = 200

// recentFiles are the files of dir ending in ext modified since since
// (a minute's slack for clocks).
func recentFiles(dir, ext string, since time.Time) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ext) {
			continue
		}
		if info, err := e.Info(); err == nil && !info.ModTime().Before(since.Add(-time.Minute)) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// codexSessions finds the rollout files of the codex agents' folders:
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl for the days since the
// oldest of them started (at most codexDaysBack), each file's cwd read
// once from its first line (session_meta).
func (t *Tracker) codexSessions(srcs []Source, now time.Time) map[string][]string {
	dirs := map[string]time.Time{}
	aliases := map[string]string{} // a resolved folder → the record's
	oldest := now
	for _, s := range srcs {
		if s.Tool == FormatCodex && !s.Shared {
			dirs[s.Dir] = s.Since
			if real, err := filepath.EvalSymlinks(s.Dir); err == nil && real != s.Dir {
				dirs[real] = s.Since // Codex may write the resolved path
				aliases[real] = s.Dir
			}
			oldest = minTime(oldest, s.Since)
		}
	}
	oldest = maxTime(oldest, now.AddDate(0, 0, -codexDaysBack))
	out := map[string][]string{}
	for day := oldest.AddDate(0, 0, -1); !day.After(now.AddDate(0, 0, 1)); day = day.AddDate(0, 0, 1) {
		dir := filepath.Join(t.CodexHome, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		for _, p := range recentFiles(dir, ".jsonl", oldest) {
			if !strings.HasPrefix(filepath.Base(p), "rollout-") {
				continue
			}
			cwd, ok := t.codex[p]
			if !ok {
				cwd = codexCwd(p)
				if cwd != "" {
					t.codex[p] = cwd
				}
			}
			if since, ok := dirs[cwd]; ok {
				if info, err := os.Stat(p); err == nil && !info.ModTime().Before(since.Add(-time.Minute)) {
					if a, ok := aliases[cwd]; ok {
						cwd = a
					}
					out[cwd] = append(out[cwd], p)
				}
			}
		}
	}
	return out
}

// codexCwd is the cwd of a rollout file's session_meta (its first line),
// "" while it cannot be read.
func codexCwd(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil {
		return ""
	}
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "session_meta" {
		return "-" // never a session of ours: not read again
	}
	return l.Payload.Cwd
}

// geminiDirs are the folders Gemini CLI keeps dir's chats in: the short
// id its project registry (~/.gemini/projects.json, {"projects": {PATH:
// ID}}) gives the folder, and the older sha256 of the path it migrates
// from (gemini-cli 0.61.0, Storage.getProjectTempDir).
func (t *Tracker) geminiDirs(dir string) []string {
	sum := sha256.Sum256([]byte(dir))
	out := []string{filepath.Join(t.GeminiDir, "tmp", hex.EncodeToString(sum[:]))}
	data, err := os.ReadFile(filepath.Join(t.GeminiDir, "projects.json"))
	if err != nil {
		return out
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if json.Unmarshal(data, &reg) == nil {
		if id := reg.Projects[filepath.Clean(dir)]; id != "" && !strings.ContainsAny(id, `/\`) && id != ".." {
			out = append(out, filepath.Join(t.GeminiDir, "tmp", id))
		}
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// CodexSession is the id of the newest Codex session whose rollout file
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl, first line
// session_meta with id and cwd) was started in dir, looking back
// codexDaysBack days from now; "" when there is none. It is the id
// `codex resume` takes: what owt resumes when no hook named one.
func CodexSession(codexHome, dir string, since, now time.Time) string {
	dirs := map[string]bool{filepath.Clean(dir): true}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dirs[real] = true // Codex may write the resolved path
	}
	var best string
	var bestAt time.Time
	for d := 0; d <= codexDaysBack+1; d++ {
		day := now.AddDate(0, 0, 1-d)
		folder := filepath.Join(codexHome, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		entries, err := os.ReadDir(folder)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasPrefix(e.Name(), "rollout-") || !strings.HasSuffix(e.Name(), ".jsonl") {
				continue
			}
			info, err := e.Info()
			if err != nil || info.ModTime().Before(since.Add(-time.Minute)) || (best != "" && !info.ModTime().After(bestAt)) {
				continue
			}
			id, cwd := codexMeta(filepath.Join(folder, e.Name()))
			if id != "" && dirs[filepath.Clean(cwd)] {
				best, bestAt = id, info.ModTime()
			}
		}
	}
	return best
}

// codexMeta is the session id and cwd of a rollout file's session_meta.
func codexMeta(path string) (id, cwd string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	if err != nil {
		return "", ""
	}
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "session_meta" {
		return "", ""
	}
	return l.Payload.ID, l.Payload.Cwd
}
