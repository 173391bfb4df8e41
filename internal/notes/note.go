// Package notes keeps the shared note of "owt note": one text that owt
// writes into every agent's own context file (CLAUDE.local.md,
// AGENTS.override.md, GEMINI.md…) between markers, and takes out again,
// leaving the rest of the file as it was.
package notes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// The marked block owt alone writes into an instructions file. Everything
// outside it belongs to the user and is kept byte for byte.
const (
	noteBegin   = "<!-- owt:note begin -->"
	noteEnd     = "<!-- owt:note end -->"
	noteHeading = "## Note from the user to every agent on this repository (set with owt note)"
)

// block is one marked block owt writes into an instructions file: the
// shared note, or the facts of the repository's memory an agent starts
// with.
type block struct{ begin, end, heading string }

var (
	noteBlock   = block{noteBegin, noteEnd, noteHeading}
	memoryBlock = block{"<!-- owt:memory begin -->", "<!-- owt:memory end -->",
		"## What earlier agents on this repository learned (owt memory; may be out of date: check before relying on it)"}
)

// hasBlock reports whether content holds any block of owt's.
func hasBlock(content string) bool {
	return strings.Contains(content, noteBegin) || strings.Contains(content, memoryBlock.begin)
}

// ErrBadNote is returned for a note owt cannot write.
var ErrBadNote = errors.New("bad note")

// noteState is the repository's current note, kept so worktrees created
// later get it too, and what owt created for it, so --clear undoes exactly
// that.
type noteState struct {
	Text  string    `json:"text"`
	SetAt time.Time `json:"set_at"`
	// Agents are the notes agents shared (owt mcp share_note), oldest
	// first, kept apart from the user's and shown under their own
	// heading, each line signed.
	Agents []AgentNote `json:"agents,omitempty"`
	// Created are the files (absolute paths) owt created to hold the note.
	Created []string `json:"created,omitempty"`
	// Excludes are the info/exclude patterns owt added for them.
	Excludes []string `json:"excludes,omitempty"`
}

// Result is what happened in one worktree.
type Result struct {
	Name   string `json:"name"`
	File   string `json:"file,omitempty"`
	Action string `json:"action"` // "written", "unchanged", "removed", "skipped"
	Reason string `json:"reason,omitempty"`
}

func (w *Notes) notePath() string {
	return filepath.Join(state.Dir(), "notes", filepath.Base(w.Store.Path))
}

// Note returns the current note text as agents read it (the user's,
// then what agents shared), "" when there is none.
func (w *Notes) Note() (string, error) {
	st, err := w.loadNote()
	return st.text(), err
}

// AgentNote is one note an agent shared.
type AgentNote struct {
	From string    `json:"from"`
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// MaxAgentNotes bounds what agents' notes may take of every agent's
// instructions (8 KiB): past it the oldest go.
const MaxAgentNotes = 8 << 10

// ErrRepeatNote is returned for a note its agent shared already.
var ErrRepeatNote = errors.New("the same note is already shared")

// AddAgentNote adds an agent's note under the agents' heading of the
// shared note, in every live worktree and for those made later: one
// change under the note's lock, so notes shared at once all stay. A note
// its agent already shared is refused; past MaxAgentNotes the oldest are
// dropped. It returns what happened in each worktree and how many old
// notes were dropped.
func (w *Notes) AddAgentNote(from, text string) ([]Result, int, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, 0, fmt.Errorf("%w: the text is empty", ErrBadNote)
	}
	if len(text) > MaxAgentNotes {
		return nil, 0, fmt.Errorf("%w: %d bytes; agents' notes take at most %d in all", ErrBadNote, len(text), MaxAgentNotes)
	}
	if strings.Contains(text, "<!--") {
		return nil, 0, fmt.Errorf("%w: the text cannot contain \"<!--\" (owt's markers begin so)", ErrBadNote)
	}
	recs, err := w.Records()
	if err != nil {
		return nil, 0, err
	}
	var results []Result
	dropped := 0
	err = w.updateNote(func(st *noteState) error {
		for _, n := range st.Agents {
			if n.From == from && n.Text == text {
				return ErrRepeatNote
			}
		}
		st.Agents = append(st.Agents, AgentNote{From: from, Text: text, At: w.Now()})
		for agentNotesSize(st.Agents) > MaxAgentNotes {
			st.Agents = st.Agents[1:]
			dropped++
		}
		for _, r := range recs {
			results = append(results, w.writeNote(st, r))
		}
		return nil
	})
	return results, dropped, err
}

func agentNotesSize(ns []AgentNote) int {
	n := 0
	for _, a := range ns {
		n += len(a.Text)
	}
	return n
}

// text is the block's text: the user's note, then the agents' notes,
// each line of each signed by its agent, so no agent's text reads as the
// user's or as another agent's.
func (st *noteState) text() string {
	if len(st.Agents) == 0 {
		return st.Text
	}
	var b strings.Builder
	if st.Text != "" {
		b.WriteString(st.Text)
		b.WriteString("\n\n")
	}
	b.WriteString("### Shared by agents (owt mcp share_note; not the user's word)\n")
	for _, n := range st.Agents {
		for _, line := range strings.Split(n.Text, "\n") {
			fmt.Fprintf(&b, "\n[from %s] %s", n.From, line)
		}
	}
	return b.String()
}

// SetNote writes text into every live worktree's local instructions file
// and keeps it for worktrees created later.
func (w *Notes) SetNote(text string) ([]Result, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, fmt.Errorf("%w: the text is empty ('owt note --clear' removes the note)", ErrBadNote)
	}
	if strings.Contains(text, noteBegin) || strings.Contains(text, noteEnd) {
		return nil, fmt.Errorf("%w: the text cannot contain owt's markers %s / %s", ErrBadNote, noteBegin, noteEnd)
	}
	recs, err := w.Records()
	if err != nil {
		return nil, err
	}
	var results []Result
	var wrote *noteState
	err = w.updateNote(func(st *noteState) error {
		st.Text, st.SetAt = text, w.Now()
		for _, r := range recs {
			results = append(results, w.writeNote(st, r))
		}
		wrote = st
		return nil
	})
	if err != nil && wrote != nil {
		// The notes are in the worktrees but owt could not record them (or
		// the files it created for them): take them out again, or they
		// would be stuck there, unknown to 'owt note --clear'.
		for _, r := range recs {
			clearNoteIn(wrote, r)
		}
		return nil, fmt.Errorf("%w; the note was taken out of the worktrees again", err)
	}
	return results, err
}

// ClearNote removes owt's block from every live worktree (and a file owt
// created for it that is empty now), and the info/exclude lines it added.
func (w *Notes) ClearNote() ([]Result, error) {
	recs, err := w.Records()
	if err != nil {
		return nil, err
	}
	var results []Result
	err = w.updateNote(func(st *noteState) error {
		for _, r := range recs {
			results = append(results, clearNoteIn(st, r))
		}
		// A file that still holds the memory block stays owt's, and
		// hidden from git: only what the note alone needed goes.
		var created, excludes []string
		for _, path := range st.Created {
			if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), memoryBlock.begin) {
				created = append(created, path)
				for _, r := range recs {
					if rel, err := filepath.Rel(r.Path, path); err == nil && !strings.HasPrefix(rel, "..") && slices.Contains(st.Excludes, "/"+filepath.ToSlash(rel)) {
						excludes = append(excludes, "/"+filepath.ToSlash(rel))
					}
				}
			}
		}
		var gone []string
		for _, p := range st.Excludes {
			if !slices.Contains(excludes, p) {
				gone = append(gone, p)
			}
		}
		if err := w.Repo.RemoveExcludes(gone...); err != nil {
			return fmt.Errorf("remove owt's note files from info/exclude: %w", err)
		}
		*st = noteState{Created: created, Excludes: slices.Compact(slices.Sorted(slices.Values(excludes)))}
		return nil
	})
	return results, err
}

// ApplyMemory writes text, the facts an agent starts with, into the
// worktree of rec as its own block, in the file the note goes to (owt's
// own, untracked and excluded from git); "" writes nothing. It says what
// it did.
func (w *Notes) ApplyMemory(rec *state.Record, text string) Result {
	res := Result{Name: rec.Name, Action: "unchanged"}
	if strings.TrimSpace(text) == "" {
		return res
	}
	err := w.updateNote(func(st *noteState) error {
		res = w.writeBlock(st, rec, memoryBlock, text)
		return nil
	})
	if err != nil {
		res.Action, res.Reason = "skipped", err.Error()
	}
	return res
}

// Apply puts the current note, if any, into a worktree being created.
// A failure is logged, never fatal: the note is a convenience.
func (w *Notes) Apply(rec *state.Record) {
	if _, err := os.Stat(w.notePath()); err != nil {
		return // no note: nothing to lock or read
	}
	err := w.updateNote(func(st *noteState) error {
		if st.text() == "" {
			return nil
		}
		res := w.writeNote(st, rec)
		switch res.Action {
		case "written":
			w.Logf("wrote the note into %s", res.File)
		case "skipped":
			w.Logf("note not written: %s", res.Reason)
		}
		return nil
	})
	if err != nil {
		w.Logf("note not written: %v", err)
	}
}

// writeNote writes st.Text into the worktree of r, recording in st what
// it created. It only ever writes a file owt created itself: a file of
// that name that owt did not create is the user's (or the project's), and
// the worktree is skipped with a word why.
func (w *Notes) writeNote(st *noteState, r *state.Record) Result {
	return w.writeBlock(st, r, noteBlock, st.text())
}

// writeBlock writes text as block b into the worktree of r (see
// writeNote).
func (w *Notes) writeBlock(st *noteState, r *state.Record, b block, text string) Result {
	res := Result{Name: r.Name}
	if r.InPlace {
		res.Action, res.Reason = "skipped", "it works in place, and owt writes no notes into your own checkout"
		return res
	}
	if _, err := os.Stat(r.Path); err != nil {
		res.Action, res.Reason = "skipped", "worktree missing"
		return res
	}
	target := noteTargetFor(r)
	if target.Withdraw != "" {
		// The file owt would write would now hide one the agent reads.
		if err := withdrawNote(st, filepath.Join(r.Path, target.Withdraw)); err != nil {
			res.Action, res.Reason = "skipped", err.Error()
			return res
		}
	}
	if target.File == "" {
		res.Action, res.Reason = "skipped", target.Skipped
		return res
	}
	path := filepath.Join(r.Path, target.File)
	res.File = path
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		res.Action, res.Reason = "skipped", err.Error()
		return res
	}
	// owt's own file still holds its block; without one it is someone
	// else's (a later worktree of the same name, the agent rewrote it).
	if existed && (!slices.Contains(st.Created, path) || !hasBlock(string(old))) {
		res.File = ""
		res.Action, res.Reason = "skipped", fmt.Sprintf("%s: %s exists and owt did not create it; owt never writes into your files (use --send)", r.Tool, target.File)
		return res
	}
	pattern := "/" + target.File
	if where := w.wouldHide(target.File, r.Path); where != "" {
		res.File = ""
		res.Action, res.Reason = "skipped", fmt.Sprintf("%s: listing %s in info/exclude would hide the untracked %s from git there (use --send)", r.Tool, target.File, where)
		return res
	}
	added, err := w.Repo.AddExcludes(pattern)
	if err != nil {
		res.Action, res.Reason = "skipped", err.Error()
		return res
	}
	if len(added) > 0 && !slices.Contains(st.Excludes, pattern) {
		st.Excludes = append(st.Excludes, pattern)
	}
	updated, err := b.with(string(old), text)
	if err != nil {
		res.Action, res.Reason = "skipped", fmt.Sprintf("%s: %v", target.File, err)
		return res
	}
	if existed && updated == string(old) {
		res.Action = "unchanged"
		return res
	}
	if err := writeKeepingMode(path, []byte(updated)); err != nil {
		res.Action, res.Reason = "skipped", err.Error()
		return res
	}
	if !existed && !slices.Contains(st.Created, path) {
		st.Created = append(st.Created, path)
	}
	res.Action = "written"
	return res
}

// clearNoteIn removes the block from every file of r's worktree that holds
// one, deleting a file owt created once nothing else is left in it.
func clearNoteIn(st *noteState, r *state.Record) Result {
	res := Result{Name: r.Name, Action: "unchanged"}
	if _, err := os.Stat(r.Path); err != nil {
		res.Action, res.Reason = "skipped", "worktree missing"
		return res
	}
	candidates := []string{"CLAUDE.local.md", "AGENTS.override.md", "AGENTS.md", "GEMINI.md"}
	candidates = append(candidates, geminiContextFiles(r.Path)...)
	seen := map[string]bool{}
	for _, name := range candidates {
		path := filepath.Join(r.Path, name)
		if seen[path] {
			continue
		}
		seen[path] = true
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		rest, found := withoutNoteBlock(string(data))
		if !found {
			continue
		}
		res.File = path
		if strings.TrimSpace(rest) == "" && slices.Contains(st.Created, path) {
			err = os.Remove(path)
		} else {
			err = writeKeepingMode(path, []byte(rest))
		}
		if err != nil {
			res.Action, res.Reason = "skipped", err.Error()
			return res
		}
		res.Action = "removed"
	}
	return res
}

// withNoteBlock returns content with owt's block holding text: replaced
// where it is, else appended after a blank line.
func withNoteBlock(content, text string) (string, error) { return noteBlock.with(content, text) }

// with returns content with block b holding text: replaced where it is,
// else appended after a blank line.
func (b block) with(content, text string) (string, error) {
	block := b.begin + "\n" + b.heading + "\n\n" + text + "\n" + b.end + "\n"
	start := strings.Index(content, b.begin)
	if start < 0 {
		if content == "" {
			return block, nil
		}
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
		return content + "\n" + block, nil
	}
	end := strings.Index(content[start:], b.end)
	if end < 0 {
		return "", errors.New("it has an owt block with no end marker; fix the file by hand")
	}
	end += start + len(b.end)
	if strings.HasPrefix(content[end:], "\n") {
		end++
	}
	return content[:start] + block + content[end:], nil
}

// withoutNoteBlock removes owt's block, and the blank line owt put before
// it; found is false when there is no block.
func withoutNoteBlock(content string) (string, bool) { return noteBlock.without(content) }

// without removes block b, and the blank line owt put before it; found
// is false when there is no block.
func (b block) without(content string) (string, bool) {
	start := strings.Index(content, b.begin)
	if start < 0 {
		return content, false
	}
	end := strings.Index(content[start:], b.end)
	if end < 0 {
		return content, false
	}
	end += start + len(b.end)
	if strings.HasPrefix(content[end:], "\n") {
		end++
	}
	before := content[:start]
	if strings.HasSuffix(before, "\n\n") {
		before = before[:len(before)-1]
	}
	return before + content[end:], true
}

// withdrawNote takes owt's block out of the note file at path when owt
// created it, deleting the file once nothing else is in it.
func withdrawNote(st *noteState, path string) error {
	if !slices.Contains(st.Created, path) {
		return nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	rest, found := withoutNoteBlock(string(data))
	if !found {
		return nil
	}
	if strings.TrimSpace(rest) == "" {
		if err := os.Remove(path); err != nil {
			return err
		}
		st.Created = slices.DeleteFunc(st.Created, func(p string) bool { return p == path })
		return nil
	}
	return writeKeepingMode(path, []byte(rest))
}

// wouldHide returns a checkout of the repository, other than the worktree
// at self, where an untracked file rel exists that git shows: listing
// "/rel" in the shared info/exclude would hide it from git there, and
// owt ship, merge and delete would no longer see it as work.
func (w *Notes) wouldHide(rel, self string) string {
	wts, err := w.Repo.Worktrees()
	if err != nil {
		return ""
	}
	for _, wt := range wts {
		if wt.Bare || wt.Prunable || wt.Path == self {
			continue
		}
		if _, err := os.Lstat(filepath.Join(wt.Path, filepath.FromSlash(rel))); err != nil {
			continue
		}
		if tracked, err := git.IsTracked(wt.Path, rel); err != nil || tracked {
			continue
		}
		if ignored, err := git.IsIgnored(wt.Path, rel); err == nil && !ignored {
			return filepath.Join(wt.Path, filepath.FromSlash(rel))
		}
	}
	return ""
}

// writeKeepingMode replaces owt's note file at path, keeping its mode
// (0644 when new).
func writeKeepingMode(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.WriteMode(path, data, mode)
}

func (w *Notes) loadNote() (noteState, error) {
	var st noteState
	data, err := os.ReadFile(w.notePath())
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read note: %w", err)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return noteState{}, fmt.Errorf("read note %s: %w", w.notePath(), err)
	}
	return st, nil
}

// updateNote changes the note state under a lock; an empty state removes
// the file.
func (w *Notes) updateNote(fn func(*noteState) error) error {
	path := w.notePath()
	doc := state.JSONFile[noteState]{Path: path, LockPath: filepath.Join(state.Dir(), "notes.lock"), What: "note " + path,
		Load: func() (*noteState, error) { st, err := w.loadNote(); return &st, err }}
	return doc.Update(func(st *noteState) (bool, error) {
		if err := fn(st); err != nil {
			return false, err
		}
		if st.text() == "" && len(st.Created) == 0 && len(st.Excludes) == 0 {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, err
			}
			return false, nil
		}
		return true, nil
	})
}

// Notes is a workspace seen by its shared note: Of(w).SetNote(…).
type Notes struct{ *workspace.Workspace }

// Of is the shared note of the worktrees of w, a complete workspace.
func Of(w *workspace.Workspace) *Notes { return &Notes{w} }

// Excludes are the info/exclude patterns owt added for the shared note's
// files (owt uninstall removes them).
func (w *Notes) Excludes() ([]string, error) {
	st, err := w.loadNote()
	if err != nil {
		return nil, err
	}
	return st.Excludes, nil
}
