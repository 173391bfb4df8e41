package resolve

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// The bounds of what the prompt quotes of the conflicts: the agent reads
// the files itself; the prompt shows where to look.
const (
	hunkLines   = 40   // lines quoted of one conflict hunk
	fileLines   = 80   // lines quoted of one file
	promptBytes = 6000 // bytes quoted in all
	hunkContext = 2    // lines quoted before and after a hunk
)

// Prompt is what the agent is told: which branch was merged into its own,
// in which files git left conflicts, the hunks (bounded, each line quoted
// after "| " so nothing in a file reads as the prompt's own words), and
// what to do. It reads the files from rec's worktree.
func Prompt(rec *state.Record, target, onto string, files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "owt merged %s (at %.12s) into your branch %s, here in your worktree, to bring in its new commits before your work lands; git stopped on conflicts in %d file(s): %s.\n",
		target, onto, rec.Branch, len(files), names(files))
	b.WriteString("Resolve every conflict: keep the intent of both sides, remove all conflict markers (<<<<<<< ======= >>>>>>>), run the project's tests, then `git add` the files and `git commit` to finish the merge. Do not abort the merge, rebase or reset.\n")
	b.WriteString("The conflicts (quoted after \"| \"):\n")
	budget := promptBytes
	for i, f := range files {
		quoted := quoteHunks(filepath.Join(rec.Path, f))
		if len(quoted) > budget {
			fmt.Fprintf(&b, "… and the conflicts in %s: open the files to see them.\n", names(files[i:]))
			break
		}
		budget -= len(quoted)
		fmt.Fprintf(&b, "--- %s\n%s", fileName(f), quoted)
	}
	return strings.TrimRight(b.String(), "\n")
}

// fileName is a file name as the prompt shows it: as it is when it is a
// plain line, else Go-quoted ("a\nb"), so a name holding a line break or
// an escape cannot add lines that read as owt's own words.
func fileName(f string) string {
	if f == untrusted.CleanLine(f) && !strings.ContainsAny(f, "\n\r\t") {
		return f
	}
	return strconv.Quote(f)
}

func names(files []string) string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = fileName(f)
	}
	return strings.Join(out, ", ")
}

// quoteHunks quotes the conflict hunks of the file at path, each with a
// few lines around it, bounded; control characters drawn as escapes.
func quoteHunks(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "  (not a file git could mark: deleted on one side, or a binary; look at it with git status)\n"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "<<<<<<<") {
			continue
		}
		end := i
		for end < len(lines) && !strings.HasPrefix(lines[end], ">>>>>>>") {
			end++
		}
		from, to := max(0, i-hunkContext), min(len(lines)-1, end+hunkContext)
		fmt.Fprintf(&b, "  line %d:\n", i+1)
		n := 0
		for k := from; k <= to; k++ {
			if n == hunkLines || shown == fileLines {
				fmt.Fprintf(&b, "  | … %d more line(s)\n", to-k+1)
				break
			}
			b.WriteString("  | " + untrusted.CleanLine(lines[k]) + "\n")
			n++
			shown++
		}
		if shown == fileLines {
			b.WriteString("  … more conflicts in this file\n")
			break
		}
		i = end
	}
	if b.Len() == 0 {
		if git.HasConflictMarkers(data) {
			return "  (markers found, but no hunk start: open the file)\n"
		}
		return "  (no markers in the file: a conflict of the file as a whole — deleted, renamed or binary on one side; see git status)\n"
	}
	return b.String()
}
