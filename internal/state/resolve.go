package state

import "time"

// Resolving is a conflict owt handed to the agent to resolve in its own
// worktree (owt resolve): owt merged Target into the branch there, left
// the conflicts in the files, and told the agent; the agent finishes the
// merge with its own commit, and owt then checks its work. The user's
// checkout is never part of it.
type Resolving struct {
	// Target is the branch merged in (the base, or a run's into); Onto its
	// commit that was merged, Head the branch's commit before.
	Target string `json:"target"`
	Onto   string `json:"onto"`
	Head   string `json:"head"`
	// Files are the files git left conflicted.
	Files []string  `json:"files"`
	At    time.Time `json:"at"`
	// Told says the agent got the instructions (typed in, or started with
	// them); Untold is why not, until a later owt resolve sends them.
	Told   bool   `json:"told"`
	Untold string `json:"untold,omitempty"`
	// Run and Task name the run task whose landing asked for it.
	Run  string `json:"run,omitempty"`
	Task string `json:"task,omitempty"`
	// Verdict is owt's last check of the agent's work: "ready", or why it
	// is not ("" not checked since the agent last worked). Seen is what
	// it was about (the branch tip and the agent's status), so the same
	// state is checked once.
	Verdict string    `json:"verdict,omitempty"`
	Seen    string    `json:"seen,omitempty"`
	Checked time.Time `json:"checked,omitzero"`
}

// ResolveReady is the Verdict of a resolve owt verified.
const ResolveReady = "ready"

// Ready says owt verified the agent's resolve.
func (r *Resolving) Ready() bool { return r != nil && r.Verdict == ResolveReady }
