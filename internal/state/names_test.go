package state

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "login-fix", "v1.2", "x_y"} {
		require.NoError(t, ValidateName(ok), ok)
	}
	for _, bad := range []string{"", "-x", ".x", "a/b", "a b", "x.lock", "a..b", strings.Repeat("a", 65), "a:b"} {
		require.Error(t, ValidateName(bad), bad)
	}
}

func TestValidateWorkerName(t *testing.T) {
	require.Equal(t, "fix-login/reviewer", WorkerName("fix-login", "reviewer"))
	require.NoError(t, ValidateWorkerName("fix-login/reviewer"))
	for _, bad := range []string{"fix-login", "/reviewer", "a/", "a/b/c", "a/b c", "-a/b", "a/-b"} {
		require.Error(t, ValidateWorkerName(bad), bad)
	}
	require.Error(t, ValidateName("fix-login/reviewer"), "a worktree name never holds '/'")
}

func TestSortedPutsWorkersUnderTheirHost(t *testing.T) {
	t0 := time.Now()
	rec := func(name string, age int, host string) *Record {
		r := &Record{Name: name, CreatedAt: t0.Add(time.Duration(age) * time.Second)}
		if host != "" {
			r.Swarm = &SwarmRole{Host: host, Role: name}
		}
		return r
	}
	f := &File{Records: map[string]*Record{}}
	for _, r := range []*Record{rec("a", 0, ""), rec("b", 1, ""), rec("a/coordinator", 2, "a"), rec("a/tester", 2, "a"), rec("c", 3, "")} {
		f.Records[r.Name] = r
	}
	var names []string
	for _, r := range f.Sorted() {
		names = append(names, r.Name)
	}
	require.Equal(t, []string{"a", "a/coordinator", "a/tester", "b", "c"}, names)
}
