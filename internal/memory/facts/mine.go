package facts

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/memory"

	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Mined counts what one mining pass added, by source.
type Mined struct {
	Done    int `json:"done"`
	Note    int `json:"note"`
	Review  int `json:"review"`
	Commits int `json:"commits"`
}

// Total is every fact added.
func (m Mined) Total() int { return m.Done + m.Note + m.Review + m.Commits }

// Mine adds to db what the repository already says, each source once
// (keyed, so a second pass adds nothing new): the summaries agents gave
// with owt done — live agents' from their records, torn-down agents' from
// what the teardown kept (memory.GoneOf) —, the shared note, the review
// comments reactions delivered to live agents, and, of exactly the
// commits owt merged, the messages that explain themselves (a body under
// the subject), each with the agent and the commit as its source.
// Nothing is invented: each fact is a text someone wrote, with where it
// came from.
func Mine(w *workspace.Workspace, db *DB, now time.Time) (Mined, error) {
	var m Mined
	recs, err := w.Records()
	if err != nil {
		return m, err
	}
	for _, r := range recs {
		if r.Done == nil || r.Done.Summary.Empty() {
			continue
		}
		key := fmt.Sprintf("done:%s:%d", r.Name, r.Done.At.UnixMilli())
		added, err := db.AddOnce(key, clip(r.Done.Summary.Block(), MaxText), Fact,
			Source{From: "done", Agent: r.Name, Branch: r.Branch}, now)
		if skip(err) {
			continue
		}
		if err != nil {
			return m, err
		}
		if added {
			m.Done++
		}
	}
	if note, err := notes.Of(w).Note(); err == nil && strings.TrimSpace(note) != "" {
		for _, para := range paragraphs(note) {
			added, err := db.AddOnce("note:"+digest(para), para, Convention, Source{From: "note"}, now)
			if skip(err) {
				continue
			}
			if err != nil {
				return m, err
			}
			if added {
				m.Note++
			}
		}
	}
	box := outbox.Default()
	for _, r := range recs {
		msgs, err := box.Delivered(outbox.Of(r), "reaction "+config.ChangesRequested)
		if err != nil {
			continue
		}
		for _, msg := range msgs {
			added, err := db.AddOnce("review:"+r.Name+":"+msg.Key, clip(msg.Text, MaxText), Gotcha,
				Source{From: "review", Agent: r.Name, Branch: r.Branch, Ref: msg.Key}, now)
			if skip(err) {
				continue
			}
			if err != nil {
				return m, err
			}
			if added {
				m.Review++
			}
		}
	}
	// Agents owt tore down (merge, ship, delete): their records are gone,
	// what they said and landed was kept for this.
	gone, err := memory.GoneOf(w.Repo.Root)
	if err != nil {
		return m, err
	}
	for _, g := range gone {
		if g.Summary != "" {
			key := fmt.Sprintf("done:%s:%d", g.Agent, g.DoneAt.UnixMilli())
			added, err := db.AddOnce(key, clip(g.Summary, MaxText), Fact,
				Source{From: "done", Agent: g.Agent, Branch: g.Branch}, now)
			if err != nil && !skip(err) {
				return m, err
			}
			if added {
				m.Done++
			}
		}
		for _, c := range g.Merged {
			if c.Body == "" || strings.HasPrefix(c.Subject, "Merge ") {
				continue
			}
			ref := c.Hash
			if g.Squashed != "" {
				ref = g.Squashed // the commit holding its changes now
			}
			fact := c.Subject + "\n" + firstParagraph(c.Body)
			added, err := db.AddOnce("commit:"+c.Hash, clip(fact, MaxText), kindOf(fact),
				Source{From: "commit", Agent: g.Agent, Ref: ref, Branch: g.Branch}, now)
			if skip(err) {
				continue
			}
			if err != nil {
				return m, err
			}
			if added {
				m.Commits++
			}
		}
	}
	return m, nil
}

// skip: a source whose text memory cannot take (empty once drawn inert)
// is passed over, not the end of the pass.
func skip(err error) bool { return errors.Is(err, ErrBadText) }

// kindOf guesses a mined text's kind from its words: a choice made is a
// decision, a warning a gotcha.
func kindOf(s string) Kind {
	l := strings.ToLower(s)
	switch {
	case containsAny(l, "decided", "instead of", "switch to", "switched to", "we use", "chose", "replace "):
		return Decision
	case containsAny(l, "beware", "careful", "gotcha", "must not", "never ", "breaks", "workaround", "flaky"):
		return Gotcha
	}
	return Fact
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, clip(p, MaxText))
		}
	}
	return out
}

func firstParagraph(s string) string {
	p, _, _ := strings.Cut(strings.TrimSpace(s), "\n\n")
	return strings.TrimSpace(p)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
