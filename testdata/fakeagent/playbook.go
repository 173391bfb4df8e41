package main

import (
	"os"
	"strings"
)

// A playbook (OWT_FAKE_PLAYBOOK) is what the agent does for a prompt that
// carries no script of its own, the way a real model decides its tool
// calls from the task: `make demo` gives each of its agents work of its
// own without a word of script in the tasks it shows.
//
// The file holds blocks separated by blank lines; lines starting with #
// are comments. A block's first line is matched, case-insensitively, as a
// substring of the prompt's first line, the task as the user put it (owt's
// template and the other agents' tasks come after it); "*" matches any
// prompt. The rest of a block are script lines (!write, !commit, !ask,
// !sleep …). The first block that matches plays; $OWT_NAME in a script
// line is the agent's worktree name (owt sets OWT_NAME), so one block can
// give every agent a file of its own.

// playbookFor returns the script of the first block of the playbook file
// at path that matches prompt, "" when none does (or there is no file).
func playbookFor(path, prompt string) string {
	if path == "" {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	lower := strings.ToLower(first)
	for _, block := range playbookBlocks(string(data)) {
		match := strings.ToLower(block[0])
		if match != "*" && !strings.Contains(lower, match) {
			continue
		}
		name := os.Getenv("OWT_NAME")
		lines := make([]string, 0, len(block)-1)
		for _, l := range block[1:] {
			lines = append(lines, strings.ReplaceAll(l, "$OWT_NAME", name))
		}
		return strings.Join(lines, "\n")
	}
	return ""
}

// playbookBlocks splits a playbook into its blocks of trimmed lines,
// comments left out; each block has its match line and at least one more.
func playbookBlocks(text string) [][]string {
	var blocks [][]string
	var cur []string
	flush := func() {
		if len(cur) > 1 {
			blocks = append(blocks, cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "#"):
		default:
			cur = append(cur, t)
		}
	}
	flush()
	return blocks
}
