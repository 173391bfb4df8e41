package ssh

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// hostile are words that would run something, split, or read as an
// option if they went on a shell line unquoted.
var hostile = []string{
	"",
	"plain",
	"two words",
	"$(touch PWNED)",
	"`touch PWNED`",
	"; touch PWNED",
	"a && touch PWNED",
	"| touch PWNED",
	"it's",
	"'",
	"''",
	`"`,
	`"$(touch PWNED)"`,
	`'$(touch PWNED)'`,
	`\`,
	`\'`,
	"line one\nline two\ntouch PWNED",
	"\r\n",
	"-rf",
	"--force",
	"-",
	"~",
	"~/x",
	"*",
	"$HOME",
	"${IFS}",
	"a\tb",
	"héllo wörld ✓ 日本語",
	"\x00"[1:] + "\x01\x1b[31m",
	"!history",
	"> PWNED",
	"< /etc/passwd",
	"#comment",
	"a\\\nb",
}

// Every word, quoted, comes back from a real sh as exactly that one
// argument, and nothing runs: the test runs sh in a temp dir and checks
// no file PWNED appears.
func TestQuoteRoundTripsThroughARealShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	for _, w := range hostile {
		// printf %s\0 prints each argument it gets, NUL-terminated.
		line := "printf '%s\\0' " + Quote(w)
		cmd := exec.Command(sh, "-c", line)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sh -c %q: %v", line, err)
		}
		if got, want := string(out), w+"\x00"; got != want {
			t.Errorf("Quote(%q) came back as %q", w, got)
		}
	}
	// All of them on one line, as owt builds it: as many arguments.
	cmd := exec.Command(sh, "-c", "printf '%s\\0' "+Line(hostile...))
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, w := range hostile {
		want += w + "\x00"
	}
	if string(out) != want {
		t.Errorf("Line of all words came back as %q, want %q", out, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Fatal("a quoted word ran a command: PWNED exists")
	}
}

func TestQuoteShape(t *testing.T) {
	for in, want := range map[string]string{
		"":     "''",
		"a":    "'a'",
		"it's": `'it'\''s'`,
		"-x":   "'-x'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A path under ~/ is the remote home, the rest still quoted.
func TestQuotePathKeepsTheHomeOnly(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for in, want := range map[string]string{
		"~":              "/h",
		"~/src/app":      "/h/src/app",
		"~/$(touch x)":   "/h/$(touch x)",
		"/abs/it's here": "/abs/it's here",
		"~user/x":        "~user/x",
		"a~/b":           "a~/b",
	} {
		cmd := exec.Command(sh, "-c", "printf %s "+QuotePath(in))
		cmd.Env = []string{"HOME=/h"}
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != want {
			t.Errorf("QuotePath(%q) came back as %q, want %q", in, out, want)
		}
	}
}
