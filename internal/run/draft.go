package run

import (
	"regexp"
	"strings"
	"sync"
)

// owt plan asks an AI tool, run headless in the repository, to break a
// goal into a plan file. DraftPrompt is what it is asked; PlanFromAnswer
// takes the plan out of what it says. The plan is then held to the same
// strict parser as any other (Parse).

// DraftPrompt is the prompt of owt plan: the goal, and owt's plan format.
func DraftPrompt(goal string) string {
	return `You are planning work for owt, which runs several AI coding agents in parallel, ` +
		`each on its own git branch and worktree of this repository, following a task graph.

Goal:
` + strings.TrimSpace(goal) + `

Read the repository as you need to, but change nothing: do not edit, create or delete files, and do not commit.
Break the goal into tasks an agent can each finish on its own branch and commit. Tasks that touch ` +
		`the same files should depend on each other rather than run side by side. A task that depends on others ` +
		`starts from their finished work.

Answer with the plan only, as TOML in one ` + "```toml" + ` fenced block, in exactly this format ` +
		`(no other keys are allowed; leave out what you do not need):

` + "```toml" + `
[run]
max_concurrent = 3        # agents at once
# into = "feat/name"      # optional branch the finished tasks are merged into, in dependency order
# timeout = "45m"         # active time per attempt
# checks = [["go", "test", "./..."]]   # commands (argv lists, no shell) that must pass before a task counts as done

[[task]]
id = "models"             # letters, digits, '-', '_' and '.'; unique
task = """
What the agent must do, in full: the files or areas to change, what done means.
"""
depends_on = []           # ids of tasks whose work this one needs

[[task]]
id = "api"
task = "..."
depends_on = ["models"]
# allow_empty = true      # only for a task that may rightly end without commits
` + "```" + `
`
}

var fence = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?ms)^[ \t]*```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n(.*?)^[ \t]*```[ \t]*$")
})

// PlanFromAnswer takes the plan out of a tool's answer: the first fenced
// block marked toml, else the first fenced block, else the answer itself
// (a tool that answered with the bare TOML).
func PlanFromAnswer(answer string) string {
	blocks := fence().FindAllStringSubmatch(answer, -1)
	for _, b := range blocks {
		if strings.EqualFold(b[1], "toml") {
			return b[2]
		}
	}
	if len(blocks) > 0 {
		return blocks[0][2]
	}
	return strings.TrimSpace(answer) + "\n"
}
