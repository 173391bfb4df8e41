package usage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

// Version is the schema version of a usage file.
const Version = 1

// File is one repository's usage: every agent the monitor read usage
// for, deleted ones too (their spend was real).
type File struct {
	Version int               `json:"version"`
	Repo    string            `json:"repo"`
	Agents  map[string]*Agent `json:"agents"`
}

// Agent is one agent's usage: its totals (what readers show) and the
// session files they come from.
type Agent struct {
	Tool string `json:"tool,omitempty"`
	// Since is when the agent's record was made: a new agent of the same
	// name starts afresh, the old one's usage kept as NAME@SINCE.
	Since time.Time `json:"since,omitzero"`
	// Life is the agent's own id (its record's); "" for usage kept
	// before lives.
	Life string `json:"life,omitempty"`
	// Model is the model of the agent's latest tokens.
	Model string `json:"model,omitempty"`
	Tokens
	// CostUSD is the cost of the tokens at the prices of the repository's
	// config when they were counted; Unpriced names the models it has no
	// price for (their tokens are not in CostUSD).
	CostUSD  float64  `json:"cost_usd"`
	Unpriced []string `json:"unpriced,omitempty"`
	// Days are the tokens by day and model (owt usage --by day).
	Days    Days      `json:"days"`
	Updated time.Time `json:"updated"`
	// Limits are the usage windows its tool last reported (limits.go).
	Limits Limits `json:"limits,omitempty"`
	// Files are the session files read, by path: kept in a file of their
	// own (Store.statesPath), which only the monitor reads.
	Files map[string]*FileState `json:"-"`
}

// Summary is what a reader shows of an agent's usage.
type Summary struct {
	Model string `json:"model,omitempty"`
	Tokens
	TotalTokens int64    `json:"total_tokens"`
	CostUSD     float64  `json:"cost_usd"`
	Unpriced    []string `json:"unpriced,omitempty"`
	// Limits are the usage windows its tool last reported.
	Limits Limits `json:"limits,omitempty"`
	// life and since are whose usage it is (Agent.Life, Agent.Since).
	life  string
	since time.Time
}

// Of reports whether the usage is that of the agent whose record has
// life and was made at created. Until the monitor moves a deleted
// agent's usage to NAME@SINCE, the usage under the name is still the
// deleted one's: a later agent given the name is not charged it. A
// record without a life (made by an older owt) takes what is there.
func (s *Summary) Of(life string, created time.Time) bool {
	switch {
	case life == "":
		return true
	case s.life != "":
		return s.life == life
	}
	return s.since.IsZero() || created.IsZero() || s.since.Equal(created)
}

// Summary is a's totals for a list.
func (a *Agent) Summary() *Summary {
	return &Summary{Model: a.Model, Tokens: a.Tokens, TotalTokens: a.Total(), CostUSD: a.CostUSD, Unpriced: a.Unpriced, Limits: a.Limits}
}

// sum fills the totals from the files' counts, at prices.
func (a *Agent) sum(prices map[string]config.Price) {
	a.Days = Days{}
	for _, f := range a.Files {
		a.Days.merge(f.Days)
	}
	models := a.Days.Models()
	a.Tokens = models.Sum()
	a.CostUSD, a.Unpriced = models.Priced(prices)
	latest := int64(-1)
	for _, f := range a.Files {
		if m := f.LastMod; f.Modified > latest && (m != "" || f.Model != "") {
			latest = f.Modified
			a.Model = m
			if f.Format == FormatCodex {
				a.Model = f.Model
			}
		}
	}
}

// Dir holds the usage files: beside the state files, not among them (a
// write there would tell every monitor that records changed).
func Dir() string { return filepath.Join(state.Dir(), "usage") }

// Store is the usage file of one repository.
type Store struct {
	Repo string
	Path string
}

// ForRepo is the usage file of the repository rooted at root, named as
// its state file is.
func ForRepo(root string) *Store {
	return &Store{Repo: root, Path: filepath.Join(Dir(), filepath.Base(state.ForRepo(root).Path))}
}

func (s *Store) empty() *File {
	return &File{Version: Version, Repo: s.Repo, Agents: map[string]*Agent{}}
}

// Load reads the file without locking (every write is an atomic rename);
// a missing file is no usage yet. A corrupt one reads as empty with an
// error, so a reader shows no usage rather than failing.
func (s *Store) Load() (*File, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return s.empty(), nil
	}
	if err != nil {
		return s.empty(), fmt.Errorf("read usage %s: %w", s.Path, err)
	}
	f := s.empty()
	if err := json.Unmarshal(data, f); err != nil || f.Version != Version {
		if err == nil {
			err = fmt.Errorf("schema %d, this owt knows %d", f.Version, Version)
		}
		return s.empty(), fmt.Errorf("usage %s is unreadable (%v): owt's monitor writes it again from what it has read of its agents' session files (the spend of agents it never read is lost)", s.Path, err)
	}
	if f.Agents == nil {
		f.Agents = map[string]*Agent{}
	}
	for name, a := range f.Agents {
		if a == nil {
			delete(f.Agents, name)
		}
	}
	return f, nil
}

// statesPath holds how far each agent's session files were read: apart
// from the totals, so owt list reads a file that stays small however
// many session files an agent has.
func (s *Store) statesPath() string {
	return filepath.Join(filepath.Dir(s.Path), "files", filepath.Base(s.Path))
}

// states is the content of the states file.
type states struct {
	Version int                              `json:"version"`
	Agents  map[string]map[string]*FileState `json:"agents"`
}

// LoadAll is Load with each agent's session files as far as they were
// read (Agent.Files): what the monitor goes on from. Unreadable offsets
// start afresh: the files are read again from their start.
func (s *Store) LoadAll() (*File, error) {
	f, err := s.Load()
	data, rerr := os.ReadFile(s.statesPath())
	var st states
	if rerr == nil && json.Unmarshal(data, &st) == nil && st.Version == Version {
		for name, files := range st.Agents {
			if a, ok := f.Agents[name]; ok {
				a.Files = files
			}
		}
	}
	for _, a := range f.Agents {
		if a.Files == nil {
			a.Files = map[string]*FileState{}
		}
		for path, fst := range a.Files {
			if fst == nil {
				delete(a.Files, path)
			}
		}
	}
	return f, err
}

// Update changes the file under its lock; a corrupt file starts afresh.
// The totals are written after the offsets, so a crash between the two
// leaves offsets ahead of nothing: the next read of a file whose offset
// is known counts only what follows it, and totals are summed again from
// the offsets' counts.
func (s *Store) Update(fn func(*File) (bool, error)) error {
	doc := state.JSONFile[File]{Path: s.Path, What: "usage " + s.Path}
	return doc.Locked(func() error {
		f, _ := s.LoadAll() // unreadable: afresh
		changed, err := fn(f)
		if err != nil || !changed {
			return err
		}
		f.Version, f.Repo = Version, s.Repo
		st := states{Version: Version, Agents: map[string]map[string]*FileState{}}
		for name, a := range f.Agents {
			if len(a.Files) > 0 {
				st.Agents[name] = a.Files
			}
		}
		data, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("encode usage offsets: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(s.statesPath()), 0o700); err != nil {
			return fmt.Errorf("save usage offsets: %w", err)
		}
		if err := atomicfile.Write(s.statesPath(), append(data, '\n')); err != nil {
			return fmt.Errorf("save usage offsets: %w", err)
		}
		return doc.Write(f)
	})
}

// Summaries reads the usage of repo's agents, by name: what owt list and
// the control plane show. Agents with no tokens and no usage windows are
// left out.
//
// It decodes only the totals (the session files' offsets and counts are
// skipped), so a list pays little for it.
func Summaries(repo string) map[string]*Summary {
	data, err := os.ReadFile(ForRepo(repo).Path)
	if err != nil {
		return map[string]*Summary{}
	}
	var f struct {
		Version int `json:"version"`
		Agents  map[string]*struct {
			Model string    `json:"model"`
			Life  string    `json:"life"`
			Since time.Time `json:"since"`
			Tokens
			CostUSD  float64  `json:"cost_usd"`
			Unpriced []string `json:"unpriced"`
			Limits   Limits   `json:"limits"`
		} `json:"agents"`
	}
	if json.Unmarshal(data, &f) != nil || f.Version != Version {
		return map[string]*Summary{}
	}
	out := make(map[string]*Summary, len(f.Agents))
	for name, a := range f.Agents {
		if a != nil && (a.Total() > 0 || len(a.Limits) > 0) {
			out[name] = &Summary{Model: a.Model, Tokens: a.Tokens, TotalTokens: a.Total(), CostUSD: a.CostUSD, Unpriced: a.Unpriced, Limits: a.Limits, life: a.Life, since: a.Since}
		}
	}
	return out
}

// TokensOf is the total tokens of the named agents of repo (a run's
// budget).
func TokensOf(repo string, names []string) int64 {
	f, _ := ForRepo(repo).Load()
	var n int64
	for _, name := range names {
		if a, ok := f.Agents[name]; ok {
			n += a.Total()
		}
	}
	return n
}

// FormatTokens writes a token count short: 950, 12.3k, 4.5M.
func FormatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e3), ".0") + "k"
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	}
}

// FormatCost writes dollars: $0.42, $12.30, "?" when nothing is priced.
func FormatCost(s *Summary) string {
	if s.CostUSD == 0 && len(s.Unpriced) > 0 {
		return "$?"
	}
	c := fmt.Sprintf("$%.2f", s.CostUSD)
	if len(s.Unpriced) > 0 {
		c += "+?"
	}
	return c
}
