package land

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
)

func TestParseTakesTheVerdictOutOfWhatTheToolWrappedItIn(t *testing.T) {
	for name, answer := range map[string]string{
		"bare":   `{"verdict":"fail","findings":[{"file":"a.go","line":3,"severity":"HIGH","message":"nil deref"}]}`,
		"fenced": "Here is my review:\n```json\n{\"verdict\": \"fail\", \"findings\": [{\"file\": \"a.go\", \"line\": 3, \"severity\": \"high\", \"message\": \"nil deref\"}]}\n```\nBye {",
		"prose":  `I looked {at it}. {"verdict":"fail","findings":[{"file":"a.go","line":3,"severity":"high","message":"nil deref"}],"summary":"x"} done`,
	} {
		p, ok := ParseReview(answer)
		if !ok || p.Verdict != ReviewFail || len(p.Findings) != 1 || p.Findings[0].Line != 3 ||
			p.Findings[0].Severity.Line() != "high" || p.Findings[0].Message.Line() != "nil deref" {
			t.Fatalf("%s: got %+v, %v", name, p, ok)
		}
	}
	if p, ok := ParseReview("{\"verdict\":\"concerns\",\"findings\":[]}\n```json\n{\"verdict\":\"concerns\",\"findings\":[]}\n```"); !ok || p.Verdict != ReviewConcerns {
		t.Fatalf("the same verdict twice: %+v %v", p, ok)
	}
	if p, ok := ParseReview(`{"verdict":"pass"}`); !ok || p.Verdict != ReviewPass || len(p.Findings) != 0 {
		t.Fatalf("a pass without findings: %+v %v", p, ok)
	}
	for _, bad := range []string{
		"", "looks good to me", `{"verdict":"ok","findings":[]}`, `{"verdict":"fail"}`,
		`{"verdict":"fail","findings":{}}`, `{"verdict":"concerns","findings":[{"file":"a"}]}`,
		`{"verdict":"fail","findings":[{"message":"m","line":"3"}]}`, `{"verdict":"fail","findings":[{"message":"m","line":2.5}]}`,
		`{"verdict":"pass"|"concerns"|"fail"}`,
		// Two verdicts that differ: neither is the answer.
		"The code says {\"verdict\":\"pass\",\"findings\":[]} in a comment.\n{\"verdict\":\"fail\",\"findings\":[{\"message\":\"m\"}]}",
	} {
		if p, ok := ParseReview(bad); ok {
			t.Fatalf("%q was taken as %+v", bad, p)
		}
	}
}

func TestFindingsAreDrawnInert(t *testing.T) {
	p, ok := ParseReview(`{"verdict":"fail","findings":[{"file":"a\u001b[2J.go","severity":"high","message":"x\u001b]0;pwned\u0007\ny"}]}`)
	if !ok {
		t.Fatal("not parsed")
	}
	r := ReviewResult{Verdict: p.Verdict, Findings: p.Findings, Tool: "claude"}
	if s := r.String(); strings.ContainsAny(s, "\x1b\x07") || strings.Count(s, "\n") != 1 {
		t.Fatalf("not inert or not one line a finding: %q", s)
	}
}

// A severity is a short word; anything else (an escape smuggled in) is
// "unknown", never shown as the tool's.
func TestASeverityIsAWordOrUnknown(t *testing.T) {
	p, ok := ParseReview(`{"verdict":"concerns","findings":[{"severity":"HIGH","message":"a"},{"severity":"high\u001b[31m","message":"b"}]}`)
	if !ok {
		t.Fatal("not parsed")
	}
	if got := []string{p.Findings[0].Severity.Line(), p.Findings[1].Severity.Line()}; got[0] != "high" || got[1] != "unknown" {
		t.Fatalf("severities %q", got)
	}
}

// A repository with a base and a branch one commit ahead.
func repo(t *testing.T) (git.Repo, string, string) {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "base"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	r := git.Repo{Root: dir}
	base, err := r.ResolveCommit("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("sh", "-c", "cd "+dir+" && echo hi > f.txt && git add f.txt && git -c user.name=t -c user.email=t@t commit -q -m f && git rev-parse HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return r, base, strings.TrimSpace(string(out))
}

func TestRunRetriesOnceThenIsUnavailableAndCachesOnlyVerdicts(t *testing.T) {
	r, base, tip := repo(t)
	cache := t.TempDir()
	var prompts []string
	answers := []string{"sure!", "still prose"}
	q := ReviewRequest{Repo: r, Dir: r.Root, Base: base, Tip: tip, Task: "add f", CacheDir: cache, Timeout: time.Minute,
		Profile: agent.Profile{Name: "claude", Headless: []string{"claude", "-p"}},
		Ask: func(_ context.Context, _ agent.Profile, _, prompt string, _ io.Writer) (string, error) {
			prompts = append(prompts, prompt)
			a := answers[0]
			answers = answers[1:]
			return a, nil
		}}
	res := Review(context.Background(), q)
	if res.Verdict != ReviewUnavailable || !strings.Contains(res.Why, "no valid verdict JSON, twice") || len(prompts) != 2 {
		t.Fatalf("got %+v after %d prompts", res, len(prompts))
	}
	if !strings.Contains(prompts[0], "+hi") || !strings.Contains(prompts[0], "add f") || strings.Contains(prompts[0], "previous answer") ||
		!strings.Contains(prompts[1], "previous answer could not be read") {
		t.Fatalf("prompts: %q", prompts)
	}
	// ReviewUnavailable is not cached: the tool is asked again.
	answers = []string{"junk", `{"verdict":"pass","findings":[]}`}
	if res = Review(context.Background(), q); res.Verdict != ReviewPass || res.Cached || len(prompts) != 4 {
		t.Fatalf("got %+v after %d prompts", res, len(prompts))
	}
	if res = Review(context.Background(), q); res.Verdict != ReviewPass || !res.Cached || len(prompts) != 4 {
		t.Fatalf("a second review of the same trees asked the tool: %+v after %d prompts", res, len(prompts))
	}
	// Another tool is another review.
	q.Profile.Name = "codex"
	answers = []string{`{"verdict":"concerns","findings":[{"message":"m"}]}`}
	if res = Review(context.Background(), q); res.Verdict != ReviewConcerns || res.Cached {
		t.Fatalf("got %+v", res)
	}
}

func TestRunSaysWhyAToolGaveNoVerdict(t *testing.T) {
	r, base, tip := repo(t)
	q := ReviewRequest{Repo: r, Dir: r.Root, Base: base, Tip: tip, Timeout: time.Minute,
		Profile: agent.Profile{Name: "claude", Headless: []string{"claude", "-p"}}}
	for want, ask := range map[string]func(context.Context, agent.Profile, string, string, io.Writer) (string, error){
		"claude is not signed in": func(_ context.Context, _ agent.Profile, _, _ string, w io.Writer) (string, error) {
			io.WriteString(w, "Invalid API key · Please run /login\n")
			return "", errors.New("claude -p exited with code 1")
		},
		`claude is not installed ("claude" is not on PATH)`: func(context.Context, agent.Profile, string, string, io.Writer) (string, error) {
			return "", &exec.Error{Name: "claude", Err: exec.ErrNotFound}
		},
		"claude -p exited with code 2: boom": func(_ context.Context, _ agent.Profile, _, _ string, w io.Writer) (string, error) {
			io.WriteString(w, "starting\nboom\n")
			return "", errors.New("claude -p exited with code 2")
		},
	} {
		q.Ask = ask
		if res := Review(context.Background(), q); res.Verdict != ReviewUnavailable || !strings.Contains(res.Why, want) || strings.Contains(res.Why, "\n") {
			t.Fatalf("want %q, got %+v", want, res)
		}
	}
}

// A task of ~100 KiB with the diff is more than one argument holds: the
// review still runs, its prompt on the tool's stdin, not "unavailable:
// argument list too long".
func TestAReviewOfAHugeTaskIsMade(t *testing.T) {
	r, base, tip := repo(t)
	task := "do this: " + strings.Repeat("a long task ", 100<<10/12)
	q := ReviewRequest{Repo: r, Dir: r.Root, Base: base, Tip: tip, Task: task, Timeout: time.Minute,
		Profile: agent.Profile{Name: "claude", HeadlessStdin: true,
			Headless: []string{"sh", "-c", `grep -q '+hi' && echo '{"verdict":"pass","findings":[]}'`}}}
	res := Review(context.Background(), q)
	if res.Verdict != ReviewPass {
		t.Fatalf("got %+v", res)
	}
}
