// The AI review gate: a headless run of a tool (claude
// -p, codex exec, …) over what a branch would land — its diff against its
// base, and its task — asking for a JSON verdict:
//
//	{"verdict": "pass"|"concerns"|"fail",
//	 "findings": [{"file": …, "line": …, "severity": …, "message": …}]}
//
// Its rules: the prompt (task and diff) is one argv element (on stdin
// when too long for one: agent.MaxArgPrompt), never through a shell; the answer is parsed strictly (the one JSON object holding a
// valid verdict is taken out of whatever the tool wrapped it in), asked
// once more with a stricter instruction when it holds none, and otherwise
// the review is ReviewUnavailable, never a guess; a tool that is missing, not
// signed in, fails or outlives the timeout is ReviewUnavailable with one line
// saying why; what the tool says is untrusted text. A verdict is cached
// by what was reviewed (the tree that would land, its base's tree, the
// tool and the prompt's version), so an unchanged branch is reviewed once.

package land

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// ReviewPromptVersion is part of the cache key: a change to the prompt that
// could change verdicts bumps it, so old verdicts are not reused.
const ReviewPromptVersion = 1

// Verdicts.
const (
	ReviewPass        = "pass"
	ReviewConcerns    = "concerns"
	ReviewFail        = "fail"
	ReviewUnavailable = "unavailable" // no verdict: ReviewResult.Why says why
)

// MaxReviewDiff bounds the diff put in the prompt (one argv element, which
// Linux caps at 128 KiB); the rest is cut and the prompt says so.
const MaxReviewDiff = 96 << 10

// Finding is one thing the tool found. Every field is the tool's text.
type Finding struct {
	File     untrusted.Untrusted `json:"file"`
	Line     int                 `json:"line,omitempty"`
	Severity untrusted.Untrusted `json:"severity"`
	Message  untrusted.Untrusted `json:"message"`
}

// ReviewResult is one review: its verdict and findings, or why there is none.
type ReviewResult struct {
	Verdict  string    `json:"verdict"`
	Findings []Finding `json:"findings"`
	Tool     string    `json:"tool"`
	// Why says, in one line, why the review is unavailable.
	Why string `json:"why,omitempty"`
	// Cached is set when the verdict was read from the cache.
	Cached bool `json:"cached,omitempty"`
	// Tree is the tree reviewed, BaseTree its base's.
	Tree     string `json:"tree"`
	BaseTree string `json:"base_tree"`
	// Truncated is set when the diff was cut to MaxReviewDiff for the prompt.
	Truncated bool      `json:"truncated,omitempty"`
	At        time.Time `json:"at"`
}

// Blocks says whether r stops a landing unless the user accepts it: a
// fail, or no verdict at all.
func (r ReviewResult) Blocks() bool { return r.Verdict == ReviewFail || r.Verdict == ReviewUnavailable }

// Headline is one line: the verdict, by which tool, how many findings.
func (r ReviewResult) Headline() string {
	cached := ""
	if r.Cached {
		cached = ", cached"
	}
	if r.Verdict == ReviewUnavailable {
		return fmt.Sprintf("review unavailable (%s): %s", r.Tool, r.Why)
	}
	return fmt.Sprintf("%s (%s, %d finding(s)%s)", r.Verdict, r.Tool, len(r.Findings), cached)
}

// Lines are the findings, one line each, drawn inert.
func (r ReviewResult) Lines() []string {
	out := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		where := f.File.Short(80)
		if where == "" {
			where = "(no file)"
		}
		if f.Line > 0 {
			where += fmt.Sprintf(":%d", f.Line)
		}
		sev := f.Severity.Short(12)
		if sev == "" {
			sev = "note"
		}
		out = append(out, fmt.Sprintf("[%s] %s: %s", sev, where, f.Message.Short(200)))
	}
	return out
}

// String is the review as owt check shows it: a headline, then the
// findings indented.
func (r ReviewResult) String() string {
	var b strings.Builder
	b.WriteString("  review:      " + r.Headline())
	for _, l := range r.Lines() {
		b.WriteString("\n    " + l)
	}
	return b.String()
}

// ReviewRequest is what to review and how.
type ReviewRequest struct {
	Repo git.Repo
	// Dir is where the tool runs; "" is a new empty repository in the
	// temp dir, removed afterwards. Not the worktree: the tool would fire
	// the hooks owt put there, as if the worktree's agent took a turn.
	Dir string
	// Base is the commit the work lands on (the target's tip), Tip the
	// commit that would land.
	Base, Tip string
	// Task is the agent's task: what the work was meant to do.
	Task    string
	Profile agent.Profile
	// Timeout bounds the whole review, both attempts.
	Timeout time.Duration
	// CacheDir holds cached verdicts ("" caches nothing).
	CacheDir string
	// Ask runs the tool headless (nil: Profile.RunHeadlessContext).
	Ask func(ctx context.Context, p agent.Profile, dir, prompt string, stderr io.Writer) (string, error)
}

// Review reviews q. It never fails: a review it could not make is a ReviewResult
// with Verdict ReviewUnavailable and Why saying why in one line.
func Review(ctx context.Context, q ReviewRequest) ReviewResult {
	res := ReviewResult{Tool: q.Profile.Name, Findings: []Finding{}, At: time.Now()}
	unavailable := func(format string, args ...any) ReviewResult {
		res.Verdict, res.Why, res.Findings = ReviewUnavailable, untrusted.CleanLine(fmt.Sprintf(format, args...)), []Finding{}
		return res
	}
	var err error
	if res.Tree, err = q.Repo.TreeOf(q.Tip); err != nil {
		return unavailable("%v", err)
	}
	if res.BaseTree, err = q.Repo.TreeOf(q.Base); err != nil {
		return unavailable("%v", err)
	}
	key := ReviewKey(res.Tree, res.BaseTree, q.Profile.Name)
	if cached, ok := load(q.CacheDir, key); ok {
		cached.Cached = true
		return cached
	}
	if len(q.Profile.Headless) == 0 {
		return unavailable("%s has no headless mode: set [review] tool to one that has (see 'owt tools')", q.Profile.Name)
	}
	mb, err := q.Repo.MergeBase(q.Base, q.Tip)
	if err != nil {
		return unavailable("%v", err)
	}
	diff, err := q.Repo.Patch(mb, q.Tip)
	if err != nil {
		return unavailable("%v", err)
	}
	diff, res.Truncated = cut(diff, MaxReviewDiff)

	if q.Dir == "" {
		tmp, err := os.MkdirTemp("", "owt-review-*")
		if err != nil {
			return unavailable("make a place to run %s: %v", q.Profile.Name, err)
		}
		defer os.RemoveAll(tmp)
		if err := git.InitEmpty(tmp); err != nil {
			return unavailable("%v", err)
		}
		q.Dir = tmp
	}
	ask := q.Ask
	if ask == nil {
		ask = func(ctx context.Context, p agent.Profile, dir, prompt string, stderr io.Writer) (string, error) {
			return p.RunHeadlessContext(ctx, dir, ReviewToolEnv(), prompt, stderr)
		}
	}
	timeout := q.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for attempt := 0; attempt < 2; attempt++ {
		var stderr tail
		answer, err := ask(ctx, q.Profile, q.Dir, ReviewPrompt(q.Task, diff, res.Truncated, attempt > 0), &stderr)
		switch {
		case ctx.Err() != nil:
			return unavailable("%s did not answer within %s (ended at the deadline)", q.Profile.Name, timeout)
		case errors.Is(err, exec.ErrNotFound):
			return unavailable("%s is not installed (%q is not on PATH)", q.Profile.Name, q.Profile.Headless[0])
		case err != nil:
			return unavailable("%s", failure(q.Profile.Name, err, answer, stderr.String()))
		}
		if v, ok := ParseReview(answer); ok {
			res.Verdict, res.Findings = v.Verdict, v.Findings
			save(q.CacheDir, key, res)
			return res
		}
		if signedOut(answer) {
			return unavailable("%s is not signed in (it answered: %s); sign in and try again", q.Profile.Name, shortFirstLine(answer))
		}
	}
	return unavailable("%s's answer held no valid verdict JSON, twice", q.Profile.Name)
}

// ReviewToolEnv is owt's environment less what names a worktree (OWT_NAME,
// OWT_REPO, OWT_PORT, TMUX_PANE): a review run from an agent's session
// must not pass for that agent.
func ReviewToolEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "OWT_NAME", "OWT_REPO", "OWT_PORT", "TMUX_PANE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// failure is one line on a tool that exited with an error: not signed in
// when its words say so, else its error and the last thing it said.
func failure(tool string, err error, stdout, stderr string) string {
	said := lastLine(stderr)
	if said == "" {
		said = lastLine(stdout)
	}
	if signedOut(stderr) || signedOut(stdout) {
		return fmt.Sprintf("%s is not signed in (%v: %s); sign in and try again", tool, err, said)
	}
	if said != "" {
		return fmt.Sprintf("%v: %s", err, said)
	}
	return err.Error()
}

// signedOut says whether a tool's words are its "not signed in" error.
func signedOut(s string) bool {
	s = strings.ToLower(s)
	for _, w := range []string{"not logged in", "not signed in", "please log in", "please login", "run /login",
		"invalid api key", "api key not", "no api key", "authentication failed", "unauthorized", "auth login"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// ReviewKey is the cache key of a review of tree against baseTree by tool.
func ReviewKey(tree, baseTree, tool string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("owt-review\x00%d\x00%s\x00%s\x00%s", ReviewPromptVersion, tree, baseTree, tool)))
	return hex.EncodeToString(h[:16])
}

func load(dir, key string) (ReviewResult, bool) {
	if dir == "" {
		return ReviewResult{}, false
	}
	data, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return ReviewResult{}, false
	}
	var r ReviewResult
	if json.Unmarshal(data, &r) != nil || (r.Verdict != ReviewPass && r.Verdict != ReviewConcerns && r.Verdict != ReviewFail) {
		return ReviewResult{}, false
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return r, true
}

// save caches a verdict; a cache that cannot be written only costs a
// review next time.
func save(dir, key string, r ReviewResult) {
	if dir == "" {
		return
	}
	data, err := json.Marshal(r)
	if err != nil {
		return
	}
	if os.MkdirAll(dir, 0o700) == nil {
		_ = atomicfile.Write(filepath.Join(dir, key+".json"), data)
	}
}

func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	return strings.ToValidUTF8(s[:n], ""), true
}

func shortFirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return untrusted.ShortLine(l, 160)
		}
	}
	return ""
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return untrusted.ShortLine(strings.TrimSpace(lines[len(lines)-1]), 160)
}

// tail keeps the last 4 KiB written to it: a tool's stderr, for the line
// that says why it failed.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - 4096; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(bytes.ToValidUTF8(t.b, nil)) }
