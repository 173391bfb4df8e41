package forge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// IssueMax bounds the text of an issue owt hands an agent: a long thread
// would crowd out the task.
const IssueMax = 16 << 10

// Issue is a GitHub issue as a task: its words are the issue author's
// and commenters', so they stay untrusted.
type Issue struct {
	Number int
	Title  untrusted.Untrusted
	// Text is the title, body and comments, within IssueMax bytes.
	Text untrusted.Untrusted
}

// Issue reads issue number's title, body and comments with gh, in dir.
func (c Client) Issue(dir string, number int) (Issue, error) {
	out, err := c.run(dir, "issue", "view", strconv.Itoa(number), "--json", "title,body,comments")
	if err != nil {
		return Issue{}, err
	}
	var raw struct {
		Title    string `json:"title"`
		Body     string `json:"body"`
		Comments []struct {
			Author struct {
				Login string `json:"login"`
			} `json:"author"`
			Body string `json:"body"`
		} `json:"comments"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return Issue{}, fmt.Errorf("gh issue view %d: unreadable answer: %w", number, err)
	}
	// Escape sequences go whole: their parameters ("[31m") would end up
	// in the branch name and the prompt as words.
	raw.Title, raw.Body = untrusted.StripEscapes(raw.Title), untrusted.StripEscapes(raw.Body)
	for i := range raw.Comments {
		raw.Comments[i].Body = untrusted.StripEscapes(raw.Comments[i].Body)
		raw.Comments[i].Author.Login = untrusted.StripEscapes(raw.Comments[i].Author.Login)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "GitHub issue #%d: %s", number, strings.TrimSpace(raw.Title))
	if body := strings.TrimSpace(raw.Body); body != "" {
		b.WriteString("\n\n" + body)
	}
	for _, cm := range raw.Comments {
		fmt.Fprintf(&b, "\n\nComment by %s:\n%s", cm.Author.Login, strings.TrimSpace(cm.Body))
	}
	s := b.String()
	if len(s) > IssueMax {
		cut := IssueMax
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "\n\n[… the issue is longer; read the rest with: gh issue view " + strconv.Itoa(number) + " --comments]"
	}
	return Issue{Number: number, Title: untrusted.From(strings.TrimSpace(raw.Title)), Text: untrusted.From(s)}, nil
}

// utf8Start says b begins a UTF-8 character, so a cut there splits none.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
