package cli

import (
	"slices"
	"strings"
	"testing"
)

// complete is what owt offers for the last of words, as a shell's
// completion script asks for it.
func complete(t *testing.T, env map[string]string, words ...string) []string {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	out, errOut, code := runOwt(t, "", nil, append(words, "--generate-bash-completion")...)
	if code != 0 || errOut != "" {
		t.Fatalf("owt %s --generate-bash-completion: exit %d, stderr %q", strings.Join(words, " "), code, errOut)
	}
	return strings.Fields(out)
}

func TestCompletionOffersFlagsSubcommandsAndFixedValues(t *testing.T) {
	for _, c := range []struct {
		words     []string
		want, not []string
	}{
		{[]string{"new", "--"}, []string{"--tool", "--template", "--host", "--base", "--name", "--help"}, []string{"--spec-stdin", "-h"}},
		{[]string{"new", "--t"}, []string{"--tool", "--template"}, []string{"--name"}},
		{[]string{"delete", "-"}, []string{"--force", "-f", "--yes"}, []string{"--accept"}},
		{[]string{"new", "--json", "--j"}, nil, []string{"--json"}},
		{[]string{""}, []string{"new", "list", "merge", "run", "completion"}, []string{"monitor", "_run", "hook", "help", "h"}},
		{[]string{"li"}, []string{"list"}, []string{"new"}},
		{[]string{"run", ""}, []string{"start", "status", "retry"}, []string{"help", "h"}},
		{[]string{"run", "status", ""}, nil, []string{"help", "h"}},
		{[]string{"switch", ""}, nil, []string{"help", "h"}},
		{[]string{"wait", "--until", ""}, []string{"idle", "waiting", "exited", "any"}, nil},
		{[]string{"wait", "--until=w"}, []string{"--until=waiting"}, []string{"--until=idle"}},
		{[]string{"wait", "--until", "=", "ex"}, []string{"exited"}, nil}, // bash splits at "="
		{[]string{"usage", "--by", ""}, []string{"agent", "run", "day"}, nil},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, nil},
		{[]string{"run", "start", ""}, []string{":files"}, nil},
		{[]string{"-"}, []string{"-L", "-S", "--trace", "--version"}, nil},
		{[]string{"help", ""}, []string{"plumbing", "new", "run"}, []string{"monitor"}},
		{[]string{"hook", ""}, nil, []string{"--help"}},
	} {
		got := complete(t, nil, c.words...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("owt %s<TAB> offers %q, without %q", strings.Join(c.words, " "), got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("owt %s<TAB> offers %q, with %q", strings.Join(c.words, " "), got, w)
			}
		}
	}
}
