// Package e2e drives the built owt binary against a real tmux server on a
// private socket, real git repositories, and the fake agent of
// testdata/fakeagent standing in for the AI tools. Nothing else is faked.
// The world each test runs in is package fixture's; tests run in parallel.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// owtBin is the built owt (fixture.Main builds it once).
var owtBin string

// TestMain builds owt and the fake agent and runs the tests; without tmux
// or git every test skips, saying so.
func TestMain(m *testing.M) {
	os.Exit(fixture.Main(m, func(b *fixture.Bins) {
		owtBin = b.Owt
	}))
}

// Env is one isolated world (see package fixture) with the helpers of
// these tests.
type Env struct {
	*fixture.World
	t *testing.T
}

// NewEnv starts a private tmux server and returns the environment, its
// test marked parallel. The server and every temp dir are removed when the
// test ends.
func NewEnv(t *testing.T, opts ...fixture.Option) *Env {
	t.Helper()
	return &Env{World: fixture.New(t, opts...), t: t}
}

// Item is the part of owt list --json the tests read.
type Item struct {
	Name, Repo, Branch, Base, Path, Session, Tool, Status, Task string
	Live                                                        bool
	ExitCode                                                    *int `json:"exit_code"`
	Port                                                        int
	Ahead, Behind, Dirty, Insertions, Deletions                 int
	StatusSource                                                string `json:"status_source"`
}

// List returns owt list --json for the repo in dir: every field as a user
// sees it, the git figures as owt list keeps them (up to StatsTTL old, or
// pending while a monitor works them out). Tests that read the figures
// use ListFresh.
func (e *Env) List(dir string, args ...string) []Item {
	e.t.Helper()
	return e.list(dir, append([]string{"list", "--json"}, args...))
}

// ListFresh is List with the git figures worked out now (--fresh): a few
// git processes per worktree, so not for polling status.
func (e *Env) ListFresh(dir string) []Item {
	e.t.Helper()
	return e.list(dir, []string{"list", "--json", "--fresh"})
}

func (e *Env) list(dir string, args []string) []Item {
	e.t.Helper()
	out := e.MustOwt(dir, args...)
	var items []Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	return items
}

// Find returns the item called name, from List.
func (e *Env) Find(dir, name string) Item {
	e.t.Helper()
	return e.findIn(e.List(dir), name)
}

// FindFresh returns the item called name, from ListFresh.
func (e *Env) FindFresh(dir, name string) Item {
	e.t.Helper()
	return e.findIn(e.ListFresh(dir), name)
}

func (e *Env) findIn(items []Item, name string) Item {
	e.t.Helper()
	for _, it := range items {
		if it.Name == name {
			return it
		}
	}
	e.t.Fatalf("no item %q in owt list", name)
	return Item{}
}

func itoa(n int) string { return fmt.Sprint(n) }

// AttachClient attaches a real tmux client, running in a pseudo-terminal,
// to session and returns the client's name (its tty).
func (e *Env) AttachClient(session string) string {
	e.t.Helper()
	name, _ := e.attach(session) // the terminal closes when the test ends
	return name
}

func (e *Env) clients() map[string]bool {
	out, _ := e.TryTmux("list-clients", "-F", "#{client_name}")
	m := map[string]bool{}
	for _, c := range strings.Split(out, "\n") {
		if c != "" {
			m[c] = true
		}
	}
	return m
}

// ClientSession is the session a client is looking at.
func (e *Env) ClientSession(client string) string {
	out, _ := e.TryTmux("display-message", "-p", "-c", client, "#{client_session}")
	return out
}
