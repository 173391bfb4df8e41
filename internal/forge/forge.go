// Package forge is the only code that runs gh, GitHub's CLI: it opens pull
// requests and reads their checks, reviews and failed logs, the way
// internal/git and internal/tmux are the only code that runs theirs.
package forge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// ErrAuth is gh's exit code 4: it is not logged in.
var ErrAuth = errors.New("gh is not logged in (run: gh auth login)")

// ErrNotInstalled is gh missing from PATH.
var ErrNotInstalled = errors.New("gh is not installed (https://cli.github.com)")

// callTimeout bounds one gh call: a hung network call must not hold a
// poller for ever.
const callTimeout = 2 * time.Minute

// Client runs gh.
type Client struct {
	Bin string // "gh" when empty

	// ctx bounds every gh call of this client besides callTimeout (nil:
	// callTimeout alone); see WithContext.
	ctx context.Context
}

// WithContext returns c whose gh calls run under ctx as well as under
// callTimeout: the monitor ends them when it stops.
func (c Client) WithContext(ctx context.Context) Client {
	c.ctx = ctx
	return c
}

// run runs gh with args in dir, no stdin, no prompts; exit 4 is ErrAuth.
func (c Client) run(dir string, args ...string) ([]byte, error) {
	bin := c.Bin
	if bin == "" {
		bin = "gh"
	}
	parent := c.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, callTimeout)
	defer cancel()
	cmd := proc.Command(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1", "NO_COLOR=1", "GH_PAGER=cat")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := proc.Run(ctx, cmd)
	if errors.Is(err, exec.ErrNotFound) {
		return nil, ErrNotInstalled
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() == 4 {
			return nil, ErrAuth
		}
		msg := untrusted.ShortLine(stderr.String(), stderrWidth)
		if msg == "" {
			msg = ee.String()
		}
		return stdout.Bytes(), fmt.Errorf("gh %s: %s", args[0]+" "+first(args[1:]), msg)
	}
	if err != nil {
		return nil, fmt.Errorf("gh %s: %w", args[0], err)
	}
	return stdout.Bytes(), nil
}

// stderrWidth bounds what of gh's stderr an error carries: it ends up on
// one line of the user's terminal or the monitor's log.
const stderrWidth = 200

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// CreateOptions are the pull request owt pr opens.
type CreateOptions struct {
	Head, Base, Title, Body string
	Draft                   bool
}

// Created is a pull request gh just opened.
type Created struct {
	Number int
	URL    string
}

var pullURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://\S+/pull/(\d+)`) })

// Create opens a pull request from opts.Head into opts.Base (gh pr
// create, run in dir); the branch must be pushed already (--head skips
// gh's own push and fork prompts).
func (c Client) Create(dir string, o CreateOptions) (Created, error) {
	args := []string{"pr", "create", "--head", o.Head, "--base", o.Base, "--title", o.Title, "--body", o.Body}
	if o.Draft {
		args = append(args, "--draft")
	}
	out, err := c.run(dir, args...)
	if err != nil {
		return Created{}, err
	}
	m := pullURL().FindStringSubmatch(string(out))
	if m == nil {
		return Created{}, fmt.Errorf("gh pr create printed no pull request URL: %q", untrusted.ShortLine(string(out), stderrWidth))
	}
	n, _ := strconv.Atoi(m[1])
	return Created{Number: n, URL: m[0]}, nil
}

// ViewFields are the fields View asks gh pr view for: one call reads the
// state, head, review decision, reviews and every check.
const ViewFields = "number,url,state,isDraft,baseRefName,headRefName,headRefOid,reviewDecision,latestReviews,statusCheckRollup"

// PR is a pull request as gh pr view shows it.
type PR struct {
	Number         int      `json:"number"`
	URL            string   `json:"url"`
	State          string   `json:"state"`
	IsDraft        bool     `json:"isDraft"`
	BaseRefName    string   `json:"baseRefName"`
	HeadRefName    string   `json:"headRefName"`
	HeadRefOid     string   `json:"headRefOid"`
	ReviewDecision string   `json:"reviewDecision"`
	LatestReviews  []Review `json:"latestReviews"`
	Rollup         []rollup `json:"statusCheckRollup"`
}

// Review is one review of a pull request.
type Review struct {
	ID     string `json:"id"`
	Author struct {
		Login string `json:"login"`
	} `json:"author"`
	State       string              `json:"state"`
	Body        untrusted.Untrusted `json:"body"`
	SubmittedAt time.Time           `json:"submittedAt"`
}

// rollup is one entry of statusCheckRollup: a check run (Actions) or a
// commit status.
type rollup struct {
	Typename     string `json:"__typename"`
	Name         string `json:"name"`
	WorkflowName string `json:"workflowName"`
	Status       string `json:"status"`
	Conclusion   string `json:"conclusion"`
	DetailsURL   string `json:"detailsUrl"`
	Context      string `json:"context"`
	State        string `json:"state"`
	TargetURL    string `json:"targetUrl"`
}

// Check is one check of a pull request's head. Its names are the
// workflow's author's words.
type Check struct {
	Name     untrusted.Untrusted
	Workflow untrusted.Untrusted
	Bucket   string // pass, fail, pending, skipping
	Link     string
}

// View reads the pull request numbered number (gh pr view, run in dir).
func (c Client) View(dir string, number int) (PR, error) {
	return c.view(dir, strconv.Itoa(number))
}

// view reads the pull request gh's selector names: a number, a URL, or a
// branch (which gh reads as a number when it looks like one).
func (c Client) view(dir, selector string) (PR, error) {
	out, err := c.run(dir, "pr", "view", selector, "--json", ViewFields)
	if err != nil {
		return PR{}, err
	}
	var pr PR
	if err := json.Unmarshal(out, &pr); err != nil {
		return PR{}, fmt.Errorf("gh pr view %s: unexpected output: %v", selector, err)
	}
	return pr, nil
}

// Checks are the pull request's checks, each in a bucket as gh pr checks
// sorts them.
func (p PR) Checks() []Check {
	out := make([]Check, 0, len(p.Rollup))
	for _, r := range p.Rollup {
		if r.Typename == "StatusContext" || r.Context != "" {
			out = append(out, Check{Name: untrusted.From(r.Context), Bucket: statusBucket(r.State), Link: r.TargetURL})
			continue
		}
		out = append(out, Check{Name: untrusted.From(r.Name), Workflow: untrusted.From(r.WorkflowName), Bucket: runBucket(r.Status, r.Conclusion), Link: r.DetailsURL})
	}
	return out
}

// CheckSummary is pass, fail, pending or none for all of p's checks.
func (p PR) CheckSummary() string {
	sum := "none"
	for _, c := range p.Checks() {
		switch c.Bucket {
		case "fail":
			return "fail"
		case "pending":
			sum = "pending"
		case "pass":
			if sum == "none" {
				sum = "pass"
			}
		}
	}
	return sum
}

func runBucket(status, conclusion string) string {
	if status != "" && status != "COMPLETED" {
		return "pending"
	}
	switch conclusion {
	case "SUCCESS", "NEUTRAL":
		return "pass"
	case "SKIPPED":
		return "skipping"
	case "":
		return "pending"
	}
	return "fail" // FAILURE, TIMED_OUT, CANCELLED, ACTION_REQUIRED, STARTUP_FAILURE, STALE
}

func statusBucket(state string) string {
	switch state {
	case "SUCCESS":
		return "pass"
	case "PENDING", "EXPECTED":
		return "pending"
	}
	return "fail"
}

var runID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/actions/runs/(\d+)`) })

// FailedLog is the log of the failed steps of the Actions run behind a
// check's link (gh run view ID --log-failed); "" with no error for a
// check that is not an Actions run.
func (c Client) FailedLog(dir, link string) (string, error) {
	m := runID().FindStringSubmatch(link)
	if m == nil {
		return "", nil
	}
	out, err := c.run(dir, "run", "view", m[1], "--log-failed")
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// Comment is one review comment on a line of a pull request.
type Comment struct {
	ID      int64               `json:"id"`
	Path    untrusted.Untrusted `json:"path"`
	Line    int                 `json:"line"`
	Orig    int                 `json:"original_line"`
	Body    untrusted.Untrusted `json:"body"`
	ReplyTo int64               `json:"in_reply_to_id"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
}

// At is "path:line" (the original line when the line is outdated), safe
// to draw.
func (c Comment) At() string {
	line := c.Line
	if line == 0 {
		line = c.Orig
	}
	if line == 0 {
		return c.Path.Line()
	}
	return fmt.Sprintf("%s:%d", c.Path.Line(), line)
}

// ReviewComments are the review comments of pull request number (gh api
// repos/{owner}/{repo}/pulls/N/comments, run in dir).
func (c Client) ReviewComments(dir string, number int) ([]Comment, error) {
	// Every page (GitHub gives 30 a page): --paginate prints one JSON
	// array per page, one after the other.
	out, err := c.run(dir, "api", fmt.Sprintf("repos/{owner}/{repo}/pulls/%d/comments", number), "--paginate")
	if err != nil {
		return nil, err
	}
	var cs []Comment
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var page []Comment
		if err := dec.Decode(&page); err != nil {
			return nil, fmt.Errorf("gh api pulls/%d/comments: unexpected output: %v", number, err)
		}
		cs = append(cs, page...)
	}
	return cs, nil
}
