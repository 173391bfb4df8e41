package proc

import (
	"os"
	"strings"
)

// An environment here is a list of KEY=VALUE strings, as exec.Cmd.Env
// holds it; a nil list is this process's own (a nil Cmd.Env inherits it).

// WithoutEnv is env less every entry of the variable name, as a new list
// (env itself is left as it is). A nil env is this process's.
func WithoutEnv(env []string, name string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// LookupEnv is os.LookupEnv over env: the value of name's last entry, and
// whether it is set at all. A nil env is this process's.
func LookupEnv(env []string, name string) (string, bool) {
	if env == nil {
		return os.LookupEnv(name)
	}
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// ExecEnv is env with each variable once, at its last entry: what os/exec
// hands a child, for syscall.Exec, which hands env as it is (a tool then
// reads a variable's first entry, not the one appended last).
func ExecEnv(env []string) []string {
	last := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); last[k] == i {
			out = append(out, kv)
		}
	}
	return out
}
