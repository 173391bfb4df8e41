package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// textLogLine is a line of owt.log in the default text format.
var textLogLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) \[\d+\] [a-z _]+: `)

// requireTextLog fails unless every line of owt.log is a text line.
func (e *Env) requireTextLog() {
	e.t.Helper()
	log := strings.TrimSuffix(e.OwtLog(), "\n")
	require.NotEmpty(e.t, log)
	for _, l := range strings.Split(log, "\n") {
		require.Regexp(e.t, textLogLine, l)
	}
}

// With [log] format = "json" in the user's config, every line owt.log
// holds after an agent's turn (the monitor's, the notifications', a
// hook's) is one JSON object carrying time, level, repo, agent and event.
// A format owt does not know is a config error; --log-format takes only
// text or json.
func TestJSONLogLinesCarryRepoAgentAndEvent(t *testing.T) {
	e := NewEnv(t)
	e.KillServerExpectMonitorGone()
	// poll_interval: the conflict is looked for again a second later
	// when main moves after the idle turn was first looked at.
	e.userConfig("[log]\nformat = \"json\"\n[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!write shared.txt agent\\n\n!commit agent's side")
	e.waitTurns("a", 1)
	e.WaitStatus(repo, "a", "idle", 10*time.Second)
	// A hook that says nothing about the status is noted in the log.
	r := e.OwtIn(it.Path, []string{"OWT_NAME=a", "OWT_REPO=" + repo}, `{"hook_event_name":"Notification","notification_type":"auth_success"}`,
		"hook", "claude", "Notification")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Empty(t, r.Stdout, "a hook prints nothing")

	type entry struct {
		Time               time.Time
		Level, Msg, Who    string
		Repo, Agent, Event *string
	}
	var entries []entry
	// main moves under it: the conflict reaction queues a message, the
	// courier delivers it; both lines name a and its repo.
	e.commitIn(repo, "shared.txt", "main\n", "main's side")
	e.Eventually(60*time.Second, "the monitor's notice of a's idle turn, the reaction and the delivery are logged", func() bool {
		entries = entries[:0]
		for _, l := range strings.Split(strings.TrimSuffix(e.OwtLog(), "\n"), "\n") {
			var en entry
			require.NoError(t, json.Unmarshal([]byte(l), &en), "not a JSON line: %q", l)
			entries = append(entries, en)
		}
		seen := map[string]bool{}
		for _, en := range entries {
			if en.Event != nil && en.Agent != nil && *en.Agent == "a" && en.Repo != nil && *en.Repo == repo {
				seen[*en.Event] = true
			}
		}
		return seen["notify"] && seen["reaction"] && seen["outbox"]
	})
	who := map[string]bool{}
	var notified bool
	hooked := 0
	for _, en := range entries {
		require.False(t, en.Time.IsZero())
		require.Contains(t, []string{"INFO", "ERROR", "WARN", "DEBUG"}, en.Level)
		require.NotNil(t, en.Repo, "every line has repo: %+v", en)
		require.NotNil(t, en.Agent, "every line has agent: %+v", en)
		require.NotNil(t, en.Event, "every line has event: %+v", en)
		who[en.Who] = true
		if *en.Event == "notify" && *en.Agent == "a" && *en.Repo == repo {
			notified = true
		}
		if en.Who == "hook" && *en.Event == "hook Notification" && *en.Agent == "a" && *en.Repo == repo {
			hooked++
			require.Contains(t, en.Msg, "event ignored")
		}
	}
	require.True(t, who["monitor"], "the monitor logs through it")
	require.True(t, notified, "the notice names its repo and agent")
	require.Equal(t, 1, hooked, "owt hook's line (JSON too) names its repo, agent and event")

	// Strict: a format owt does not know is an error, naming the key.
	e.userConfig("[log]\nformat = \"yaml\"\n")
	r = e.Owt(repo, "list")
	requireOneLineError(t, r, "log.format")
	e.userConfig("[log]\nformat = \"json\"\n")
	r = e.Owt(repo, "--log-format", "yaml", "list")
	require.Equal(t, 2, r.Code)
	requireOneLineError(t, r, "--log-format")
}
