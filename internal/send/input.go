package send

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// InputHeld is why a message waits while the agent's input box holds
// text owt did not type (ErrInputHeld's words; the outbox holds its
// messages with them).
const InputHeld = "its input box holds text owt did not type"

// ErrInputHeld: the agent's input box holds text owt did not type (the
// user's draft, or a prompt the tool put back): typed after it, owt's
// text would be glued to it and sent as one prompt. It is ErrNotReady, so
// the outbox keeps its messages for later.
var ErrInputHeld = fmt.Errorf("%w: %s", ErrNotReady, InputHeld)

// heldError refuses a send to r whose box holds held, nothing typed.
func heldError(r *state.Record, held string) error {
	return fmt.Errorf("%s: %w (%s); nothing was typed; send or clear it there ('owt switch %s'), then send again", r.Name, ErrInputHeld, quoteShort(held), r.Name)
}

// errInputStuck: owt's own leftover did not go away when erased. Nothing
// was typed, so it is ErrNotReady: the outbox keeps its messages rather
// than calling them undeliverable.
var errInputStuck = fmt.Errorf("%w: its input box still holds text owt typed earlier, and erasing it did not take", ErrNotReady)

// clearTries is how many rounds of Backspace owt's leftover gets.
const clearTries = 4

// ownMin is how much of owt's text a box must show, at least, to be taken
// for a piece of it: a draft "s" is the user's, not owt's "status?".
const ownMin = 8

// pasteToken is what Claude Code shows in its box for a long paste.
var pasteToken = regexp.MustCompile(`^\[Pasted text #\d+(?: \+\d+ lines?)?\]$`)

// clearInput makes sure r's input box holds nothing owt did not put
// there before owt types: an empty box passes; owt's own leftover (the
// last text it typed, an Enter that did not take; or the task it gave,
// which Claude Code puts back in the box on Esc) is erased with
// Backspace; anything else is the user's or the tool's and is refused,
// never erased. A screen whose box owt cannot find passes as before.
func clearInput(w *workspace.Workspace, r *state.Record, d Delivery) error {
	cl := w.ClassifierOf(w.Tools[r.Tool])
	if cl == nil {
		return nil
	}
	screen, err := w.Tmux.Capture(r.Pane)
	if err != nil {
		return fmt.Errorf("read the screen of %s: %w", r.Name, err)
	}
	held, hint, ok := cl.InputBox(screen)
	last := lastTyped(w.Repo.Root, r.Name)
	if ok && hint && squash(held) != "" && squash(held) == squash(last.Glued) {
		// Read as the hint, but owt's last text landed after it: a draft.
		return heldError(r, held)
	}
	if !ok || hint || held == "" {
		return nil
	}
	if !ownText(held, last, r.FirstPrompt()) {
		return heldError(r, held)
	}
	first := held
	// Cut off midway, the erasing leaves a start of first: owt's too.
	if err := rememberTyped(w.Repo.Root, r.Name, typed{Text: first, Erasing: true}); err != nil {
		return err
	}
	for tries := 0; held != ""; tries++ {
		if tries == clearTries {
			return fmt.Errorf("%s: %w (%s); nothing was typed; clear it there ('owt switch %s')", r.Name, errInputStuck, quoteShort(held), r.Name)
		}
		// One Backspace a character (a line break is one too); the box
		// then shows less of owt's text, never another's.
		if err := w.Tmux.SendKeyTimes(r.Pane, "BSpace", len([]rune(held))); err != nil {
			return fmt.Errorf("clear the input of %s: %w", r.Name, err)
		}
		prev, deadline := held, time.Now().Add(d.enterWait())
		for held == prev && time.Now().Before(deadline) {
			time.Sleep(40 * time.Millisecond)
			if screen, err = w.Tmux.Capture(r.Pane); err != nil {
				return fmt.Errorf("read the screen of %s: %w", r.Name, err)
			}
			if held, ok = cl.InputText(screen); !ok {
				return fmt.Errorf("%s: %w: its input box went from the screen as owt cleared it; nothing was typed", r.Name, ErrNotReady)
			}
		}
		if held != "" && !strings.HasPrefix(squash(first), squash(held)) {
			return heldError(r, held)
		}
	}
	return nil
}

// ownText reports whether the text an input box shows is owt's own: all
// of a text owt typed there (as wrapped on screen: the last one, or the
// task, which Claude Code puts back in the box on Esc); a start of it
// long enough not to be a chance, only when owt's erasing of it was cut
// off; the paste token the box showed for owt's last text. A draft the
// user types that merely starts like owt's text is the user's.
func ownText(held string, last typed, task string) bool {
	h := squash(held)
	if h == "" {
		return true
	}
	if last.Shown != "" && strings.TrimSpace(held) == last.Shown {
		return true
	}
	if o := squash(last.Text); o != "" &&
		(h == o || last.Erasing && len([]rune(h)) >= ownMin && strings.HasPrefix(o, h)) {
		return true
	}
	return squash(task) != "" && h == squash(task)
}

// squash is s without white space: a box wraps and indents what it shows.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// quoteShort quotes held text for a message, its first 60 characters.
func quoteShort(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// typed is the last text owt typed into one agent.
type typed struct {
	Text string `json:"text"`
	// Shown is the paste token the box showed for Text ("[Pasted text
	// #3 +12 lines]"): a paste of the user's shows another number.
	Shown string `json:"shown,omitempty"`
	// Submitted: the agent took Text (its Enter, or a dialog's answer).
	Submitted bool `json:"submitted,omitempty"`
	// Erasing: owt set out to erase Text from the box (clearInput); cut
	// off, it leaves a start of it there.
	Erasing bool `json:"erasing,omitempty"`
	// Glued is a box that read as the tool's hint but that Text landed
	// after (gluedAfter): a draft, which owt types after no more.
	Glued string `json:"glued,omitempty"`
}

// typedPath is where owt keeps the last text it typed into the agent
// called name of the repository at repoRoot.
func typedPath(repoRoot, name string) string {
	sum := sha256.Sum256([]byte(state.Key{Repo: repoRoot, Name: name}.String()))
	return filepath.Join(state.Dir(), "typed", hex.EncodeToString(sum[:])[:24])
}

// rememberTyped keeps t as the last owt typed into the agent: before it
// is typed, so what is left of it in the box later is known as owt's,
// and again once the agent took it.
func rememberTyped(repoRoot, name string, t typed) error {
	p := typedPath(repoRoot, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("remember what is typed into %s: %w", name, err)
	}
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("remember what is typed into %s: %w", name, err)
	}
	if err := atomicfile.WriteMode(p, b, 0o600); err != nil {
		return fmt.Errorf("remember what is typed into %s: %w", name, err)
	}
	return nil
}

// lastTyped is the last text owt typed into the agent (none if none, or
// if the file cannot be read: then every text in the box is another's).
func lastTyped(repoRoot, name string) typed {
	var t typed
	b, err := os.ReadFile(typedPath(repoRoot, name))
	if err != nil || json.Unmarshal(b, &t) != nil {
		return typed{}
	}
	return t
}

// pasted reports whether text goes in as a paste rather than keys.
func pasted(text string) bool {
	return strings.ContainsAny(text, "\r\n") || len(text) > pasteOver
}

// gluedAfter checks the box once owt's text landed, before Enter: text
// there before owt's that the box seemed not to hold (a draft that reads
// like the tool's hint, or typed as owt read the box) would be sent with
// it as one prompt. Then owt's own text is taken back out with Backspace
// (it went in last, as keys) and nothing is submitted.
func gluedAfter(w *workspace.Workspace, r *state.Record, held string, own typed) error {
	h, o := squash(held), squash(own.Text)
	before := ""
	if i := strings.LastIndex(held, "[Pasted text #"); pasted(own.Text) && i > 0 && pasteToken.MatchString(strings.TrimSpace(held[i:])) {
		before = held[:i] // a paste shows as its token
	} else if o != "" && len(h) > len(o) && strings.HasSuffix(h, o) {
		before = strings.TrimSuffix(held, strings.TrimSpace(own.Text))
	}
	if strings.TrimSpace(before) == "" {
		return nil
	}
	own.Glued = strings.TrimSpace(before)
	_ = rememberTyped(w.Repo.Root, r.Name, own)
	took := "owt took its text back out"
	// Leading blanks are not counted: a box that dropped them would lose
	// as many characters of the draft; kept, they stay as blanks.
	keys := len([]rune(strings.TrimLeftFunc(own.Text, unicode.IsSpace)))
	if pasted(own.Text) {
		took = "owt's text is in the box after it"
	} else if err := w.Tmux.SendKeyTimes(r.Pane, "BSpace", keys); err != nil {
		took = "taking owt's text back out failed: " + err.Error()
	}
	return fmt.Errorf("%s: %w (%s); %s and nothing was sent; send or clear it there ('owt switch %s'), then send again",
		r.Name, ErrInputHeld, quoteShort(strings.TrimSpace(before)), took, r.Name)
}
