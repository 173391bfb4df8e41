package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ghFigures counts the gh calls the monitor really makes for 10 open pull
// requests whose checks stay pending, one of which gets a failing head
// half-way (its log is read once): the fake gh (testdata/fakegh) logs every
// call. poll_interval is 5 s over a 30 s window, so the figure per
// interval is what a minute costs at the default 60 s.
func ghFigures(w *world, bin string) {
	const prs, interval, window = 10, 5 * time.Second, 30 * time.Second
	ghDir, ok := w.installFakeGh()
	if !ok {
		return
	}
	repo := w.repo("prs")
	bare := filepath.Join(w.root, "prs-remote.git")
	w.must("", "git", "init", "-q", "--bare", "-b", "main", bare)
	w.must(repo, "git", "remote", "add", "origin", bare)
	check(os.WriteFile(filepath.Join(repo, ".owt.toml"), []byte(fmt.Sprintf("[pr]\npoll_interval = %q\n", interval)), 0o644))
	w.must(repo, "git", "add", ".owt.toml")
	w.must(repo, "git", "commit", "-q", "-m", "poll often")
	w.must(repo, "git", "push", "-q", "origin", "main")

	branches := make([]string, prs)
	for i := range branches {
		name := fmt.Sprintf("pr%d", i)
		out, err := w.cmd(repo, bin, "new", "--no-agent", "--no-setup", "--json", "--name", name, "Pull request "+name).Output()
		check(err)
		var rec struct{ Branch, Path string }
		check(json.Unmarshal(out, &rec))
		branches[i] = rec.Branch
		check(os.WriteFile(filepath.Join(rec.Path, name+".txt"), []byte(name+"\n"), 0o644))
		w.must(rec.Path, "git", "add", ".")
		w.must(rec.Path, "git", "commit", "-q", "-m", "work of "+name)
	}
	setFixtures(ghDir, branches, -1)
	for i := range branches {
		w.must(repo, bin, "pr", fmt.Sprintf("pr%d", i))
	}
	restartMonitor(w, repo, bin)
	polled := func() bool {
		var items []struct{ PR *struct{ Checks string } }
		out, err := w.cmd(repo, bin, "list", "--json").Output()
		if err != nil || json.Unmarshal(out, &items) != nil {
			return false
		}
		n := 0
		for _, it := range items {
			if it.PR != nil && it.PR.Checks == "pending" {
				n++
			}
		}
		return n == prs
	}
	for deadline := time.Now().Add(30 * time.Second); !polled(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Println("gh calls: the monitor never polled the 10 pull requests; no figure")
			return
		}
	}

	start := time.Now()
	time.Sleep(window / 2)
	setFixtures(ghDir, branches, 0) // PR 0's head fails
	time.Sleep(window / 2)
	end := time.Now()
	views, logs, other := countCalls(filepath.Join(ghDir, "calls.jsonl"), start, end)
	per := float64(views+logs+other) / float64(window/interval)
	fmt.Printf("%-44s %7.1f   (budget ≤ %d + 1 per changed PR; measured: %d pr view + %d log + %d other calls in %s at poll_interval %s)\n",
		fmt.Sprintf("gh calls per poll interval, %d open PRs, 1 changed", prs), per, prs, views, logs, other, window, interval)
}

// installFakeGh builds the fake gh onto the bench's PATH (and the tmux
// server's, for the monitor) with its fixtures dir.
func (w *world) installFakeGh() (string, bool) {
	tools := filepath.Join(w.root, "gh-bin")
	dir := filepath.Join(w.root, "gh")
	check(os.MkdirAll(dir, 0o755))
	build := exec.Command("go", "build", "-o", filepath.Join(tools, "gh"), "./testdata/fakegh")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the fake gh: %v\n%s", err, out)
		return "", false
	}
	path := tools + string(os.PathListSeparator) + envOf(w.env, "PATH")
	w.env = append(w.env, "PATH="+path, "FAKEGH_DIR="+dir)
	w.must("", "tmux", "set-environment", "-g", "PATH", path)
	w.must("", "tmux", "set-environment", "-g", "FAKEGH_DIR", dir)
	return dir, true
}

// setFixtures serves each branch's pull request (number i+1) with its
// checks pending; the one at failing (if any) has a new head whose check
// failed, with a log.
func setFixtures(dir string, branches []string, failing int) {
	type fixture struct {
		Args   []string `json:"args"`
		Stdout string   `json:"stdout"`
	}
	var fx []fixture
	for i, b := range branches {
		n := i + 1
		url := fmt.Sprintf("https://github.com/o/app/pull/%d", n)
		head, check := "a0"+fmt.Sprint(n), map[string]any{"__typename": "CheckRun", "name": "test", "status": "IN_PROGRESS", "conclusion": ""}
		if i == failing {
			head = "b0" + fmt.Sprint(n)
			check = map[string]any{"__typename": "CheckRun", "name": "test", "status": "COMPLETED", "conclusion": "FAILURE",
				"detailsUrl": "https://github.com/o/app/actions/runs/900/job/1"}
		}
		view, _ := json.Marshal(map[string]any{"number": n, "url": url, "state": "OPEN", "headRefName": b, "headRefOid": head,
			"reviewDecision": "REVIEW_REQUIRED", "latestReviews": []any{}, "statusCheckRollup": []any{check}})
		fx = append(fx, fixture{Args: []string{"pr", "view", fmt.Sprint(n)}, Stdout: string(view)},
			fixture{Args: []string{"pr", "create", "--head", b}, Stdout: url + "\n"})
	}
	fx = append(fx, fixture{Args: []string{"run", "view", "900"}, Stdout: "--- FAIL: TestBench\n"},
		fixture{Args: []string{"pr", "list"}, Stdout: "[]"}) // owt pr's look: no pull request yet
	data, err := json.Marshal(fx)
	check(err)
	tmp := filepath.Join(dir, ".fixtures.tmp")
	check(os.WriteFile(tmp, data, 0o644))
	check(os.Rename(tmp, filepath.Join(dir, "fixtures.json")))
}

// restartMonitor starts the bench server's monitor again from this
// world's environment (the fake gh on its PATH).
func restartMonitor(w *world, repo, bin string) {
	if pid := monitorPID(w); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 50 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	w.must(repo, bin, "tmux", "init")
}

// countCalls counts the fake gh's calls between start and end: pr view,
// run view (a failed log), and anything else.
func countCalls(path string, start, end time.Time) (views, logs, other int) {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct {
			Argv []string
			At   time.Time
		}
		if json.Unmarshal(sc.Bytes(), &c) != nil || c.At.Before(start) || c.At.After(end) {
			continue
		}
		switch strings.Join(c.Argv[:min(2, len(c.Argv))], " ") {
		case "pr view":
			views++
		case "run view":
			logs++
		default:
			other++
		}
	}
	return views, logs, other
}

// envOf is the last value of key in env.
func envOf(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
