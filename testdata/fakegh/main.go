// Command fakegh plays GitHub's gh CLI in owt's tests: it serves fixtures
// chosen by argv and logs every call. It never reaches a network.
//
// $FAKEGH_DIR/fixtures.json is a list of fixtures, read afresh on each call
// (tests replace it to move a pull request along); the first whose args
// match is served. An arg "*" matches any one argument; a fixture's args
// match a longer argv by prefix. A fixture with "until" is served only
// until a call whose argv starts with it was made (a pull request that
// does not exist until gh pr create made it). "{argN}" in a fixture's
// output is the call's Nth argument (from 0). "delay" makes it answer
// late, as gh over a slow network does. Each call is appended to
// $FAKEGH_DIR/calls.jsonl as {"argv": [...], "dir": "...", "at": "..."}.
// With no fixture for argv it says so on stderr and exits 1.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type fixture struct {
	Args   []string `json:"args"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr"`
	Exit   int      `json:"exit"`
	Until  []string `json:"until"`
	Delay  string   `json:"delay"`
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
	before := calls(dir) // the calls before this one
	logCall(dir, args)
	fx, err := load(filepath.Join(dir, "fixtures.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakegh:", err)
		os.Exit(1)
	}
	for _, f := range fx {
		if matches(f.Args, args) && !(f.Until != nil && calledWith(before, f.Until)) {
			if d, err := time.ParseDuration(f.Delay); err == nil {
				time.Sleep(d)
			}
			fmt.Fprint(os.Stdout, withArgs(f.Stdout, args))
			fmt.Fprint(os.Stderr, withArgs(f.Stderr, args))
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

// withArgs puts the call's arguments in for "{argN}".
func withArgs(text string, args []string) string {
	for i, a := range args {
		text = strings.ReplaceAll(text, fmt.Sprintf("{arg%d}", i), a)
	}
	return text
}

// calls are the argvs of the calls logged so far.
func calls(dir string) [][]string {
	data, err := os.ReadFile(filepath.Join(dir, "calls.jsonl"))
	if err != nil {
		return nil
	}
	var out [][]string
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var c call
		if dec.Decode(&c) != nil {
			break
		}
		out = append(out, c.Argv)
	}
	return out
}

// calledWith reports whether one of argvs starts with prefix.
func calledWith(argvs [][]string, prefix []string) bool {
	for _, a := range argvs {
		if len(a) >= len(prefix) && matches(prefix, a) {
			return true
		}
	}
	return false
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
