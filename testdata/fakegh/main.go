// Command fakegh plays GitHub's gh CLI in owt's tests: it serves fixtures
// chosen by argv and logs every call. It never reaches a network.
//
// $FAKEGH_DIR/fixtures.json is a list of fixtures, read afresh on each call
// (tests replace it to move a pull request along); the first whose args
// match is served. An arg "*" matches any one argument; a fixture's args
// match a longer argv by prefix. Each call is appended to
// $FAKEGH_DIR/calls.jsonl as {"argv": [...], "dir": "...", "at": "..."}.
// With no fixture for argv it says so on stderr and exits 1.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

type fixture struct {
	Args   []string `json:"args"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr"`
	Exit   int      `json:"exit"`
}

type call struct {
	Argv []string  `json:"argv"`
	Dir  string    `json:"dir"`
	At   time.Time `json:"at"`
}

func main() {
	dir := os.Getenv("FAKEGH_DIR")
	if dir == "" {
		fmt.Fprintln(os.Stderr, "fakegh: FAKEGH_DIR is not set")
		os.Exit(1)
	}
	args := os.Args[1:]
	logCall(dir, args)
	fx, err := load(filepath.Join(dir, "fixtures.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegh:", err)
		os.Exit(1)
	}
	for _, f := range fx {
		if matches(f.Args, args) {
			fmt.Fprint(os.Stdout, f.Stdout)
			fmt.Fprint(os.Stderr, f.Stderr)
			os.Exit(f.Exit)
		}
	}
	fmt.Fprintf(os.Stderr, "fakegh: no fixture for %q\n", args)
	os.Exit(1)
}

func load(path string) ([]fixture, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var fx []fixture
	if err := json.Unmarshal(data, &fx); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return fx, nil
}

func matches(pattern, args []string) bool {
	if len(pattern) > len(args) {
		return false
	}
	for i, p := range pattern {
		if p != "*" && p != args[i] {
			return false
		}
	}
	return true
}

// logCall appends one line; O_APPEND keeps concurrent calls' lines whole.
func logCall(dir string, args []string) {
	cwd, _ := os.Getwd()
	line, _ := json.Marshal(call{Argv: args, Dir: cwd, At: time.Now()})
	f, err := os.OpenFile(filepath.Join(dir, "calls.jsonl"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegh:", err)
		os.Exit(1)
	}
	defer f.Close()
	_, _ = f.Write(append(line, '\n'))
}
