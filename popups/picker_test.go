package popups

import (
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/inventory"
	"github.com/owt-tmux/owt/internal/text"
)

// A task is someone else's words (a peer agent's owt new, a plan): the
// picker's preview draws its first line without the controls that would
// drive the terminal.
func TestPickerPreviewDrawsTheTaskInert(t *testing.T) {
	it := inventory.Item{Name: "a", Repo: "/r", Status: "idle", Missing: true,
		Task: text.From("fix \x1b]0;PWNED\x07it\x1b[2J\nthen more")}
	p := newPreviewer(nil, agents{items: []inventory.Item{it}})
	got := p.render(0, 80, 20)
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("the preview draws the task's controls: %q", got)
	}
	if !strings.Contains(got, "task   fix ]0;PWNEDit[2J …\n") {
		t.Fatalf("the preview lost the task's first line: %q", got)
	}
}

func TestInPlaceAgentsSayInPlace(t *testing.T) {
	items := []inventory.Item{{Name: "quick", Repo: "/r", Status: "idle", Branch: "fix/quick", Base: "main", InPlace: true},
		{Name: "wt", Repo: "/r", Status: "idle", Branch: "feat/wt", Base: "main"}}
	rows := labels(items, time.Now())
	if !strings.Contains(rows[0], "fix/quick (in place)") || strings.Contains(rows[1], "in place") {
		t.Fatalf("the picker's rows: %q", rows)
	}
}
