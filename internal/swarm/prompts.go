package swarm

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/state"
)

// duties are what each role is told to do.
var duties = map[string]string{
	Researcher: "You are the swarm's researcher. Read the code, the docs and the history that bear on the goal, and report what you find: where the change goes, what it touches, the risks. Your tool runs read-only: you do not change files.",
	Implementer: "You are the swarm's implementer. Write the code the goal needs, in small steps, and commit each step that works (git add -A && git commit). " +
		"You are the one who changes the code; the others read, review and test it.",
	Reviewer: "You are the swarm's reviewer. Review the work on this branch (git diff and git log against where it started) and report findings: bugs, missing cases, unclear code, each with its file and line. Your tool runs read-only: you do not change files.",
	Tester: "You are the swarm's tester. Write tests for the goal and run them, and report what fails. Change only test files (*_test.go, test/, tests/, *_test.*, *.test.*, *.spec.*, test_*.py): " +
		"owt checks your edits when the swarm stops, and any other file you change is reported to the user.",
}

// summaries are the roles in one line, for the coordinator's roster.
var summaries = map[string]string{
	Researcher:  "reads and reports (read-only)",
	Implementer: "writes the code and commits",
	Reviewer:    "reviews the diff and reports findings (read-only)",
	Tester:      "writes and runs tests (test files only)",
}

// prompt is the first prompt of the member of host's swarm with role.
func prompt(role, goal string, host *state.Record, members []string) string {
	coord := state.WorkerName(host.Name, Coordinator)
	var b strings.Builder
	where := fmt.Sprintf("in the git worktree %s (branch %s)", host.Path, host.Branch)
	if role == Coordinator {
		fmt.Fprintf(&b, "You coordinate a swarm of AI agents working together %s toward this goal:\n\n%s\n\n", where, quote(goal))
		b.WriteString("Your workers, each an agent in its own tmux window of this worktree:\n")
		for _, m := range members {
			if m != Coordinator {
				fmt.Fprintf(&b, "- %s: %s\n", state.WorkerName(host.Name, m), summaries[m])
			}
		}
		b.WriteString("\nSplit the goal into steps and give each worker its part. Message a worker with the owt MCP tool send_message (to: its name, e.g. \"" +
			state.WorkerName(host.Name, members[len(members)-1]) + "\"), read their reports with check_messages, and see them all with list_peers. " +
			"Without the MCP tools, the shell command: owt send NAME \"text\". Do not edit files yourself: the workers do the work. " +
			"When the goal is met, say so and summarize what was done.")
		return b.String()
	}
	fmt.Fprintf(&b, "%s\n\nYou are one of a swarm of AI agents working together %s toward this goal:\n\n%s\n\n", duties[role], where, quote(goal))
	fmt.Fprintf(&b, "Your coordinator is %s: it will message you with your part. Start on what your role can do for the goal now, then follow its messages. "+
		"Report to it with the owt MCP tool send_message (to: %q) when you are done or blocked, and read its messages with check_messages "+
		"(without the MCP tools: owt send %s \"text\").", coord, coord, coord)
	return b.String()
}

// quote indents the goal: the user's words, set apart from owt's.
func quote(goal string) string {
	lines := strings.Split(goal, "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}
