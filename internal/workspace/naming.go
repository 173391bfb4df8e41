package workspace

import (
	"strings"
	"unicode"

	"github.com/owt-tmux/owt/internal/agent"
	"golang.org/x/text/unicode/norm"
)

// maxSlug bounds the slug so branch names, folder names and tmux session
// names stay readable.
const maxSlug = 50

// branchTypes maps a task's first word to a conventional branch prefix.
var branchTypes = map[string]string{
	"fix": "fix", "fixes": "fix", "fixed": "fix", "bug": "fix", "bugfix": "fix",
	"refactor": "refactor", "docs": "docs", "doc": "docs", "document": "docs",
	"test": "test", "tests": "test", "chore": "chore", "perf": "perf",
	"hotfix": "hotfix",
}

// fillerWords carry no meaning in a branch name.
var fillerWords = map[string]bool{
	"a": true, "an": true, "the": true, "with": true, "and": true, "or": true,
	"to": true, "for": true, "of": true, "in": true, "on": true, "at": true,
	"by": true, "from": true, "into": true, "please": true, "that": true,
	"this": true, "some": true, "it": true, "is": true, "be": true, "so": true,
	"my": true, "our": true, "your": true, "its": true, "as": true, "up": true,
}

// taskWords splits a task into lowercase ASCII words: accents are folded
// ("Café" → "cafe"), everything that is not a letter or digit separates words,
// and letters outside ASCII are dropped.
func taskWords(task string) []string {
	task = agent.ReplaceEscapes(task, " ") // their parameters are not words of the task
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	for _, r := range norm.NFKD.String(task) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// combining accent left by NFKD: drop it, keep the base letter
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			cur.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// "don't" → "dont"
		default:
			flush()
		}
	}
	flush()
	return words
}

// DeriveName returns the worktree name and branch for a task, before
// uniqueness is checked: "Fix login redirect" → "login-redirect",
// "fix/login-redirect".
func DeriveName(task string) (name, branch string) {
	words := taskWords(task)
	kind := "feat"
	if len(words) > 0 {
		if t, ok := branchTypes[words[0]]; ok {
			kind = t
			if len(words) > 1 {
				words = words[1:]
			}
		}
	}
	var kept []string
	for _, w := range words {
		if !fillerWords[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = words
	}
	slug := joinBounded(kept, maxSlug)
	if slug == "" {
		slug = "task"
	}
	return slug, kind + "/" + slug
}

// joinBounded joins words with "-" up to max bytes, cutting at a word
// boundary (a single over-long word is cut).
func joinBounded(words []string, max int) string {
	var b strings.Builder
	for _, w := range words {
		extra := len(w)
		if b.Len() > 0 {
			extra++
		}
		if b.Len()+extra > max {
			if b.Len() == 0 {
				b.WriteString(w[:max])
			}
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	return strings.Trim(b.String(), "-")
}

// SessionPart makes s usable in a tmux session name. tmux rewrites some
// characters itself (':' and '.', and escapes others when it lists names),
// and '#' starts a format, so only letters, digits and a few harmless
// marks are kept; the rest become '_'.
func SessionPart(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			return r
		case strings.ContainsRune("-_+=,@%", r):
			return r
		default:
			return '_'
		}
	}, s)
}
