package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// These tests hold owt to its word with the real agent CLIs: every status
// owt shows while a tool starts, takes its task, is interrupted or loses
// its task behind a sign-in screen is recorded and checked, not only the one the test waits for; and a check that owt told
// no false "finished its turn" waits until the monitor has surely passed
// the moment it would have (noticeBarrier). A fake model API on loopback
// lets the tools past sign-in, so a test sees whether the task arrives.

// fakeModelAPI answers the tools' model requests: Anthropic's
// /v1/messages (claude, ANTHROPIC_BASE_URL), OpenAI's /v1/responses
// (codex, openai_base_url) and Gemini's models/*:streamGenerateContent
// (gemini, GOOGLE_GEMINI_BASE_URL), as server-sent events. A request whose last
// user words are "wait forever" starts an answer and never ends it (a turn
// to interrupt), "hold on" never starts one; any other gets "hi".
type fakeModelAPI struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func startFakeModelAPI(t *testing.T) *fakeModelAPI {
	t.Helper()
	api := &fakeModelAPI{}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(func() {
		api.CloseClientConnections()
		api.Close()
	})
	return api
}

// got reports whether a model request carried text.
func (a *fakeModelAPI) got(text string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.bodies {
		if strings.Contains(b, text) {
			return true
		}
	}
	return false
}

func (a *fakeModelAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.bodies = append(a.bodies, string(body))
	a.mu.Unlock()
	hang := strings.LastIndex(string(body), "wait forever") > strings.LastIndex(string(body), "say hi")
	// "hold on": no answer starts at all (Esc then stops a turn the model
	// has not begun to answer).
	if strings.LastIndex(string(body), "hold on") > strings.LastIndex(string(body), "say hi") {
		<-r.Context().Done()
		return
	}
	send := func(event string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	wait := func(ping func()) {
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
				ping()
			}
		}
	}
	type m = map[string]any
	if r.Method != http.MethodPost {
		http.NotFound(w, r) // codex tries a websocket first, then plain HTTP
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/messages"):
		w.Header().Set("Content-Type", "text/event-stream")
		send("message_start", m{"type": "message_start", "message": m{"id": "msg_1", "type": "message", "role": "assistant",
			"model": "claude-fake", "content": []any{}, "stop_reason": nil, "usage": m{"input_tokens": 1, "output_tokens": 1}}})
		send("content_block_start", m{"type": "content_block_start", "index": 0, "content_block": m{"type": "text", "text": ""}})
		if hang {
			send("content_block_delta", m{"type": "content_block_delta", "index": 0, "delta": m{"type": "text_delta", "text": "Working on it."}})
			wait(func() { send("ping", m{"type": "ping"}) })
			return
		}
		send("content_block_delta", m{"type": "content_block_delta", "index": 0, "delta": m{"type": "text_delta", "text": "hi"}})
		send("content_block_stop", m{"type": "content_block_stop", "index": 0})
		send("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": "end_turn"}, "usage": m{"output_tokens": 1}})
		send("message_stop", m{"type": "message_stop"})
	case strings.HasSuffix(r.URL.Path, "/responses"):
		w.Header().Set("Content-Type", "text/event-stream")
		send("response.created", m{"type": "response.created", "response": m{"id": "resp_1"}})
		if hang {
			wait(func() {
				fmt.Fprint(w, ": still here\n\n")
				if f, ok := w.(http.Flusher); ok {
					f.Flush()
				}
			})
			return
		}
		send("response.output_item.done", m{"type": "response.output_item.done", "item": m{"type": "message", "role": "assistant",
			"id": "msg_1", "content": []any{m{"type": "output_text", "text": "hi"}}}})
		send("response.completed", m{"type": "response.completed", "response": m{"id": "resp_1",
			"usage": m{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
	case strings.HasSuffix(r.URL.Path, ":generateContent"):
		// Gemini CLI's router asks which model a task needs first.
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(m{"candidates": []any{m{"index": 0, "finishReason": "STOP", "content": m{"role": "model",
			"parts": []any{m{"text": `{"reasoning":"simple","model_choice":"flash"}`}}}}}})
	case strings.HasSuffix(r.URL.Path, ":streamGenerateContent"):
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(text, finish string) {
			c := m{"index": 0, "content": m{"role": "model", "parts": []any{m{"text": text}}}}
			if finish != "" {
				c["finishReason"] = finish
			}
			b, _ := json.Marshal(m{"candidates": []any{c}, "usageMetadata": m{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}})
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		if hang {
			chunk("Working on it.", "")
			<-r.Context().Done()
			return
		}
		chunk("hi", "STOP")
	default:
		http.NotFound(w, r)
	}
}

// seenStatus is what owt said of an agent at one moment.
type seenStatus struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	WaitingFor  string `json:"waiting_for"`
	TurnError   string `json:"turn_error"`
	Interrupted bool   `json:"interrupted"`
}

func (s seenStatus) String() string {
	out := s.Status
	switch {
	case s.WaitingFor != "":
		out += "(" + s.WaitingFor + ")"
	case s.TurnError != "":
		out += "(turn failed: " + s.TurnError + ")"
	case s.Interrupted:
		out += "(interrupted)"
	}
	return out
}

// statusRecorder polls owt list --json all along and keeps, per agent,
// every status owt showed, in order: a brief misread fails the test even
// when the right status comes later.
type statusRecorder struct {
	mu   sync.Mutex
	seen map[string][]seenStatus
	stop chan struct{}
	done chan struct{}
}

func (e *Env) recordStatuses(repo string) *statusRecorder {
	rec := &statusRecorder{seen: map[string][]seenStatus{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(rec.done)
		for {
			cmd := exec.Command(owtBin, "list", "--json")
			cmd.Dir, cmd.Env = repo, e.Environ()
			if out, err := cmd.Output(); err == nil {
				var items []seenStatus
				if json.Unmarshal(out, &items) == nil {
					rec.note(items)
				}
			}
			select {
			case <-rec.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	e.t.Cleanup(rec.close)
	return rec
}

func (r *statusRecorder) close() {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.done
}

func (r *statusRecorder) note(items []seenStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, it := range items {
		h := r.seen[it.Name]
		if len(h) == 0 || h[len(h)-1] != it {
			r.seen[it.Name] = append(h, it)
		}
	}
}

// history is every status owt showed for name so far.
func (r *statusRecorder) history(name string) []seenStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seenStatus(nil), r.seen[name]...)
}

func historyText(h []seenStatus) string {
	var parts []string
	for _, s := range h {
		parts = append(parts, s.String())
	}
	return strings.Join(parts, " → ")
}

// mark is where name's history stands now: await from there.
func (r *statusRecorder) mark(name string) int { return len(r.history(name)) }

// await waits until owt shows name as want (status, and the detail when
// given), and fails as soon as it shows, after the mark from, anything ok
// rejects.
func (e *Env) await(r *statusRecorder, name string, from int, want seenStatus, ok func(seenStatus) bool) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	checked := from // each status is judged once, in order: ok may keep state
	for {
		h := r.history(name)
		for ; checked < len(h); checked++ {
			if s := h[checked]; !ok(s) {
				e.t.Fatalf("%s: owt showed %s, which is not true here; all it showed: %s\nowt log:\n%s", name, s, historyText(h), e.OwtLog())
			}
		}
		if len(h) > 0 {
			last := h[len(h)-1]
			want.Name = name
			if last == want {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: want %s, owt showed: %s\nowt log:\n%s\nscreens:\n%s", name, want, historyText(h), e.OwtLog(), e.screens())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// screens are the texts of every session's pane, for a failure message.
func (e *Env) screens() string {
	var out []string
	for _, s := range e.Sessions() {
		out = append(out, "── "+s+" ──\n"+strings.TrimRight(e.Capture("="+s+":"), "\n "))
	}
	return strings.Join(out, "\n")
}

// canaryToml is a tool of the test's own: a screen that asks a question
// ("[y/n]") each time Enter is pressed, and goes back to its prompt on the
// next Enter. Its questions are what noticeBarrier waits on.
const canaryToml = `
[tools.canary]
command = ["sh", "-c", "echo CANARY-IDLE; while read x; do printf '\\033[2J\\033[H'; echo 'CANARY-ASK proceed? [y/n]'; read y; printf '\\033[2J\\033[H'; echo CANARY-IDLE; done"]
prompt = "none"
ready = "CANARY-IDLE"
idle = "CANARY-IDLE"
waiting = "CANARY-ASK"
`

// startCanary writes the canary tool into repo's config and starts it.
func (e *Env) startCanary(repo string) string {
	e.t.Helper()
	e.WriteFile(repo, ".owt.toml", canaryToml)
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "canary", "--name", "canary", "stand by")
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	e.WaitStatus(repo, "canary", "idle", 30*time.Second)
	return it.Session
}

// noticeBarrier returns once the monitor has surely looked at every
// status change made before it was called, and logged any notice it owed
// for one: it makes the canary ask, waits for that notice, answers, and
// waits for the canary to read idle again. Every reading is held for the
// same status.Debounce, and the canary's began after any earlier change's,
// so the pass that tells of the canary's question is no earlier than the
// one that would tell of that change; the canary's idle is recorded by a
// later pass, so that one is over, its notices in the log. (A change made
// after the call is not covered: a test waits for it on screen first.)
func (e *Env) noticeBarrier(repo, canary string) {
	e.t.Helper()
	before := strings.Count(e.OwtLog(), "owt: canary needs you")
	e.Tmux("send-keys", "-t", "="+canary+":", "Enter")
	e.Eventually(30*time.Second, "the canary's question is notified", func() bool {
		return strings.Count(e.OwtLog(), "owt: canary needs you") > before
	})
	e.Tmux("send-keys", "-t", "="+canary+":", "Enter")
	e.WaitStatus(repo, "canary", "idle", 30*time.Second)
}

// notices counts the notices owt gave that contain text.
func (e *Env) notices(text string) int {
	n := 0
	for _, l := range e.LogLines("monitor") {
		if strings.Contains(l, text) {
			n++
		}
	}
	return n
}

// seeOnScreen waits until the session's pane shows text, and shows the
// pane when it never does.
func (e *Env) seeOnScreen(session, text string) {
	e.t.Helper()
	target := "=" + session + ":"
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(e.Capture(target), text) {
		if time.Now().After(deadline) {
			e.t.Fatalf("%s never showed %q:\n%s\nowt log:\n%s", session, text, e.Capture(target), e.OwtLog())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// typeTask types text into the agent's pane and submits it, as a user
// does (and presses Enter again if the tool took the first as a paste).
func (e *Env) typeTask(session, text string) {
	e.t.Helper()
	target := "=" + session + ":"
	e.Tmux("send-keys", "-t", target, "-l", text)
	time.Sleep(500 * time.Millisecond)
	e.Tmux("send-keys", "-t", target, "Enter")
}

// realClaudeHome writes what a person who ran claude once leaves behind:
// onboarding done, these repos trusted, the API key in the environment
// approved.
func realClaudeHome(t *testing.T, e *Env, key string, trusted ...string) {
	t.Helper()
	projects := map[string]any{}
	for _, p := range trusted {
		projects[p] = map[string]any{"hasTrustDialogAccepted": true}
	}
	data, err := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               projects,
		// claude keeps the last 20 characters of a key the user approved.
		"customApiKeyResponses": map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(e.Home, ".claude.json"), data, 0o600))
}

// setWorld sets a variable for owt and for the agents the tmux server
// starts.
func (e *Env) setWorld(k, v string) {
	e.Set(k, v)
	e.Tmux("set-environment", "-g", k, v)
}

// Claude Code 2.1: a first-run dialog is never "working"; a turn stopped
// with Esc ("Interrupted · What should Claude do instead?") is idle,
// interrupted, with no "finished its turn"; a turn that ran to its end is
// one.
func TestRealClaudeEscIsNoFinishedTurn(t *testing.T) {
	e := realEnv(t, "claude")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	other := e.NewRepo("other")
	const key = "sk-ant-owt-test-not-a-real-key-0123456789"
	realClaudeHome(t, e, key, repo)
	e.setWorld("ANTHROPIC_API_KEY", key)
	e.setWorld("ANTHROPIC_BASE_URL", api.URL)
	canary := e.startCanary(repo)
	rec := e.recordStatuses(repo)
	recOther := e.recordStatuses(other)

	// A repo claude was never told to trust: its dialog is up at once;
	// owt says starting, then waiting for trust, never working.
	e.newReal(other, "t", "claude", "say hi")
	e.await(recOther, "t", 0, seenStatus{Status: "waiting", WaitingFor: "trust"}, func(s seenStatus) bool {
		return s.Status == "starting" || s == seenStatus{Name: "t", Status: "waiting", WaitingFor: "trust"}
	})

	// A trusted repo, a key, a model that answers: the turn runs, and
	// Esc stops it. The task is 2 KB: Claude Code shows a long first
	// prompt as a paste, never read as idle (issue 32 item 15).
	s := e.newReal(repo, "k", "claude", strings.Repeat("Add the login page, its form and its tests. ", 45)+"wait forever")
	notStopped := func(st seenStatus) bool {
		return st.Status == "starting" || st.Status == "working" && st.TurnError == ""
	}
	e.await(rec, "k", 0, seenStatus{Status: "working"}, notStopped)
	e.seeOnScreen(s, "esc to interrupt")
	e.noticeBarrier(repo, canary) // the monitor has read the running turn
	from := rec.mark("k")
	e.press(s, "Escape")
	e.seeOnScreen(s, "Interrupted · What should Claude do instead?")
	e.await(rec, "k", from, seenStatus{Status: "idle", Interrupted: true}, func(st seenStatus) bool {
		return notStopped(st) || st.Status == "idle" && st.Interrupted
	})
	e.noticeBarrier(repo, canary)
	require.Zero(t, e.notices("owt: k finished its turn"), "Esc is no finished turn")
	require.Contains(t, e.MustOwt(repo, "status", "k"), "idle (interrupted)")

	// A turn that ends: owt says so, once.
	e.typeTask(s, "say hi")
	e.Eventually(30*time.Second, "the model was asked", func() bool { return api.got("say hi") })
	e.Eventually(30*time.Second, "owt tells of the finished turn", func() bool {
		return e.notices("owt: k finished its turn") == 1
	})
	// The recorder polls owt list: let it catch up with the notice.
	e.Eventually(10*time.Second, "the recorder saw k idle", func() bool {
		h := rec.history("k")
		return len(h) > 0 && h[len(h)-1].Status == "idle"
	})
	h := rec.history("k")
	require.Equal(t, seenStatus{Name: "k", Status: "idle"}, h[len(h)-1], historyText(h))

	// A 2 KB task sent with owt send (pasted, then Enter): working from
	// the send on, never idle while claude takes it in.
	var long strings.Builder
	for i := 1; long.Len() < 2048; i++ {
		fmt.Fprintf(&long, "Step %d: make sure the login form validates the email address and shows a clear error.\n", i)
	}
	long.WriteString("wait forever")
	from = rec.mark("k")
	e.MustOwt(repo, "send", "k", long.String())
	e.await(rec, "k", from, seenStatus{Status: "working"}, func(st seenStatus) bool { return st.Status == "working" })
	e.seeOnScreen(s, "esc to interrupt")
	e.noticeBarrier(repo, canary)
	h = rec.history("k")
	t.Logf("k: %s", historyText(h))
	for _, st := range h[from:] {
		require.Equal(t, "working", st.Status, "after owt send of 2 KB: %s", historyText(h))
	}
}

// codexWorld gives codex a home of its own with an API key (codex login
// --with-api-key, as a user signs in), its model requests sent to api,
// and, when trusted, repo trusted (what "Trust and continue" writes).
func codexWorld(t *testing.T, e *Env, api *fakeModelAPI, repo string, signedIn bool) {
	t.Helper()
	e.setWorld("CODEX_HOME", filepath.Join(e.Home, ".codex"))
	require.NoError(t, os.MkdirAll(e.Var("CODEX_HOME"), 0o700))
	// Codex 0.169 reads no OPENAI_BASE_URL; its config's openai_base_url
	// it does (first over a websocket, then plain HTTP).
	cfg := fmt.Sprintf("openai_base_url = %q\n", api.URL+"/v1")
	if !signedIn {
		require.NoError(t, os.WriteFile(filepath.Join(e.Var("CODEX_HOME"), "config.toml"), []byte(cfg), 0o600))
		return
	}
	login := exec.Command(filepath.Join(realToolsBin(t), "codex"), "login", "--with-api-key")
	login.Env = e.Environ()
	login.Stdin = strings.NewReader("sk-owt-test-not-a-key\n")
	out, err := login.CombinedOutput()
	require.NoError(t, err, "%s", out)
	cfg += fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", repo)
	require.NoError(t, os.WriteFile(filepath.Join(e.Var("CODEX_HOME"), "config.toml"), []byte(cfg), 0o600))
}

// noIdleBeforeWork accepts the statuses of an agent starting on its task:
// starting and working, and idle only after a turn was seen working.
func noIdleBeforeWork() func(seenStatus) bool {
	worked := false
	return func(s seenStatus) bool {
		worked = worked || s.Status == "working"
		return s.Status == "starting" || s.Status == "working" || s.Status == "idle" && worked && s.TurnError == "" && !s.Interrupted ||
			s.Status == "waiting" && s.WaitingFor == "hooks" && !worked // the hooks review
	}
}

// Codex signed in, in a trusted repo: it shows an empty prompt for seconds
// before it takes its task. No turn finished before that; the one that
// did is told once. Its F2 overlay, opened by the user, is no question;
// Esc is no finished turn.
func TestRealCodexNormalStart(t *testing.T) {
	e := realEnv(t, "codex")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	codexWorld(t, e, api, repo, true)
	canary := e.startCanary(repo)
	rec := e.recordStatuses(repo)

	s := e.newReal(repo, "n", "codex", "say hi")
	e.await(rec, "n", 0, seenStatus{Status: "idle"}, noIdleBeforeWork())
	require.True(t, api.got("say hi"), "the task reached the model")
	e.Eventually(30*time.Second, "owt tells of the finished turn", func() bool {
		return e.notices("owt: n finished its turn") == 1
	})

	// F2 at the prompt: the warnings the user asked to read.
	from := rec.mark("n")
	e.seeOnScreen(s, "f2 to view")
	e.press(s, "F2")
	e.seeOnScreen(s, "esc dismiss")
	e.noticeBarrier(repo, canary)
	require.Zero(t, e.notices("owt: n needs you"), "an overlay the user opened is no question to them")
	e.await(rec, "n", from, seenStatus{Status: "idle"}, func(st seenStatus) bool { return st.Status == "idle" })
	e.press(s, "Escape")

	// A turn stopped with Esc ("■ Conversation interrupted").
	e.typeTask(s, "wait forever")
	e.await(rec, "n", from, seenStatus{Status: "working"}, func(st seenStatus) bool { return st.Status == "idle" || st.Status == "working" })
	e.seeOnScreen(s, "esc to interrupt")
	e.noticeBarrier(repo, canary)
	from = rec.mark("n")
	e.press(s, "Escape")
	e.seeOnScreen(s, "Conversation interrupted")
	e.await(rec, "n", from, seenStatus{Status: "idle", Interrupted: true}, func(st seenStatus) bool {
		return st.Status == "working" || st.Status == "idle" && st.Interrupted
	})
	e.noticeBarrier(repo, canary)
	require.Equal(t, 1, e.notices("owt: n finished its turn"), "Esc is no finished turn")

	// With owt's hooks in the user's Codex hooks file, codex runs without
	// -c, on its shared background server: after the hooks review it sits
	// at an empty prompt for seconds before it takes the task.
	require.Contains(t, e.MustOwt(repo, "tools", "codex-hooks"), "installed owt's hooks")
	h := e.newReal(repo, "hk", "codex", "say hi again")
	e.await(rec, "hk", 0, seenStatus{Status: "waiting", WaitingFor: "hooks"}, func(st seenStatus) bool {
		return st.Status == "starting" || st.Status == "waiting" && st.WaitingFor == "hooks"
	})
	e.seeOnScreen(h, "Hooks need review")
	from = rec.mark("hk")
	e.pressUntil(h, "Down", "› 2. Trust all and continue")
	e.press(h, "Enter")
	e.await(rec, "hk", from, seenStatus{Status: "idle"}, noIdleBeforeWork())
	require.True(t, api.got("say hi again"), "the task reached the model")
	e.Eventually(30*time.Second, "owt tells of the finished turn", func() bool {
		return e.notices("owt: hk finished its turn") == 1
	})
	e.noticeBarrier(repo, canary)
	require.Equal(t, 1, e.notices("owt: hk finished its turn"))
	t.Logf("hk: %s", historyText(rec.history("hk")))
}

// Codex not signed in: its sign-in screens come first. Run as owt runs
// it by default (-c notify, embedded), it keeps its task through them and
// runs it: owt says waiting, then working, then idle, and the task
// reaches the model; with owt's hooks installed (no -c, its shared
// background server) too.
func TestRealCodexSignInAndItsTask(t *testing.T) {
	e := realEnv(t, "codex")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	codexWorld(t, e, api, repo, false)
	rec := e.recordStatuses(repo)
	signIn := func(s string) {
		e.press(s, "Down", "Down")
		e.pressUntil(s, "Enter", "Use an OpenAI API key")
		e.pressUntil(s, "Enter", "Paste or type your API key")
		e.Tmux("send-keys", "-t", "="+s+":", "-l", "sk-owt-test-not-a-key")
	}
	beforeTask := func(st seenStatus) bool { return st.Status == "starting" || st.Status == "waiting" }

	s := e.newReal(repo, "c", "codex", "say hi")
	e.await(rec, "c", 0, seenStatus{Status: "waiting", WaitingFor: "login"}, beforeTask)
	signIn(s)
	e.pressUntil(s, "Enter", "Trust this folder")
	from := rec.mark("c")
	e.pressWhile(s, "Enter", "Trust this folder") // a key codex let go by while drawing is pressed again
	// The monitor reads the screen a moment late: a sign-in screen just
	// left may still be told after the mark.
	noIdleC, workedC := noIdleBeforeWork(), false
	e.await(rec, "c", from, seenStatus{Status: "idle"}, func(st seenStatus) bool {
		workedC = workedC || st.Status == "working"
		return !workedC && beforeTask(st) || noIdleC(st)
	})
	require.True(t, api.got("say hi"), "the task reached the model: %s\n%s", historyText(rec.history("c")), e.screens())

	// Signed out again, with owt's hooks: codex runs on its shared server,
	// and keeps its task through the sign-in and hooks review too.
	require.NoError(t, os.Remove(filepath.Join(e.Var("CODEX_HOME"), "auth.json")))
	require.Contains(t, e.MustOwt(repo, "tools", "codex-hooks"), "installed owt's hooks")
	d := e.newReal(repo, "d", "codex", "say hello")
	e.await(rec, "d", 0, seenStatus{Status: "waiting", WaitingFor: "login"}, beforeTask)
	signIn(d)
	e.pressUntil(d, "Enter", "Hooks need review")
	// Down until "Trust all" is the choice (a key let go by while codex
	// draws would make Enter open the review), then Enter.
	e.pressUntil(d, "Down", "› 2. Trust all and continue")
	e.press(d, "Enter")
	noIdle := noIdleBeforeWork()
	e.await(rec, "d", 0, seenStatus{Status: "idle"}, func(st seenStatus) bool { return beforeTask(st) || noIdle(st) })
	e.Eventually(60*time.Second, "the task reached the model", func() bool { return api.got("say hello") })
	t.Logf("c: %s; d: %s", historyText(rec.history("c")), historyText(rec.history("d")))
}

// Gemini CLI sends its task at once, behind its sign-in screen, and that
// turn fails ("API Error: Content generator not initialized"). Once the
// user has signed in, owt says the turn failed and how to send the task
// again, as the README promises, and tells them.
func TestRealGeminiTaskLostBehindSignIn(t *testing.T) {
	e := realEnv(t, "gemini")
	repo := e.NewRepo("app")
	rec := e.recordStatuses(repo)

	s := e.newReal(repo, "g", "gemini", "say hi")
	// Its BeforeAgent hook says working when it sends the task, behind
	// the sign-in screen: true, for the moment that turn runs.
	beforeSignIn := func(st seenStatus) bool {
		return st.Status == "starting" || st.Status == "waiting" || st.Status == "working"
	}
	e.await(rec, "g", 0, seenStatus{Status: "waiting", WaitingFor: "trust"}, beforeSignIn)
	e.press(s, "Enter")
	e.await(rec, "g", 0, seenStatus{Status: "waiting", WaitingFor: "login"}, beforeSignIn)
	// Down until the API key is the choice (a key let go by while Gemini
	// draws would make Enter sign in with Google), then Enter.
	e.pressUntil(s, "Down", "● 2. Use Gemini API Key")
	e.press(s, "Enter")
	e.await(rec, "g", 0, seenStatus{Status: "waiting", WaitingFor: "API key"}, beforeSignIn)
	// From the API key box on, the box is what needs the user until it
	// goes: the turn Gemini runs behind it (its BeforeAgent hook) is not
	// "working" for a tick.
	from := rec.mark("g")
	e.typeKeyUntil(s, "AIza-owt-test-not-a-key", "Type your message")
	const failed = "Content generator not initialized"
	e.seeOnScreen(s, failed)
	e.await(rec, "g", from, seenStatus{Status: "idle", TurnError: failed}, func(st seenStatus) bool {
		return st.Status == "waiting" && st.WaitingFor == "API key" || st == seenStatus{Name: "g", Status: "idle", TurnError: failed}
	})
	e.Eventually(30*time.Second, "owt tells the turn failed and how to resend", func() bool {
		return strings.Contains(e.OwtLog(), "owt: g's turn failed ("+failed+"); 'owt send g --task' sends the task again")
	})
	require.Contains(t, e.MustOwt(repo, "list"), "idle (turn failed: "+failed+")")
	t.Logf("g: %s", historyText(rec.history("g")))
}

// Gemini CLI 0.61 signed in with an API key (the fake model API behind
// GOOGLE_GEMINI_BASE_URL): Esc during an answer draws "ℹ Request
// cancelled." and its AfterAgent hook still fires; owt says idle
// (interrupted), with no "finished its turn" (issue 32 item 12). A turn
// that runs to its end is told once.
func TestRealGeminiEscIsNoFinishedTurn(t *testing.T) {
	e := realEnv(t, "gemini")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	realGeminiHome(t, e, filepath.Join(filepath.Dir(repo), "app.worktrees", "g"))
	e.setWorld("GEMINI_API_KEY", "owt-test-not-a-key")
	e.setWorld("GOOGLE_GEMINI_BASE_URL", api.URL)
	canary := e.startCanary(repo)
	rec := e.recordStatuses(repo)

	s := e.newReal(repo, "g", "gemini", "wait forever")
	notStopped := func(st seenStatus) bool {
		return st.Status == "starting" || st.Status == "working" && st.TurnError == ""
	}
	e.await(rec, "g", 0, seenStatus{Status: "working"}, notStopped)
	e.seeOnScreen(s, "esc to cancel")
	e.Eventually(60*time.Second, "the model was asked", func() bool { return api.got("wait forever") })
	e.noticeBarrier(repo, canary) // the monitor has read the running turn
	from := rec.mark("g")
	escAt := time.Now()
	e.press(s, "Escape")
	e.seeOnScreen(s, "Request cancelled.")
	e.await(rec, "g", from, seenStatus{Status: "idle", Interrupted: true}, func(st seenStatus) bool {
		return notStopped(st) || st.Status == "idle"
	})
	e.noticeBarrier(repo, canary)
	require.Zero(t, e.notices("owt: g finished its turn"), "Esc is no finished turn")
	require.Contains(t, e.MustOwt(repo, "status", "g"), "idle (interrupted)")
	afterEsc := false
	for _, h := range e.why(repo, "g").Hooks {
		afterEsc = afterEsc || h.Event == "AfterAgent" && h.At.After(escAt)
	}
	require.True(t, afterEsc, "gemini fires its end-of-turn hook after an Esc too: the case under test")

	e.typeTask(s, "say hi")
	e.Eventually(60*time.Second, "owt tells of the finished turn", func() bool {
		return e.notices("owt: g finished its turn") == 1
	})
	e.Eventually(10*time.Second, "the recorder saw g idle", func() bool {
		h := rec.history("g")
		return len(h) > 0 && h[len(h)-1] == seenStatus{Name: "g", Status: "idle"}
	})
	t.Logf("g: %s", historyText(rec.history("g")))
}

// realGeminiHome signs Gemini CLI in with an API key (GEMINI_API_KEY) and
// trusts the given folders, so it takes its task at once.
func realGeminiHome(t *testing.T, e *Env, trusted ...string) {
	t.Helper()
	dir := filepath.Join(e.Home, ".gemini")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "settings.json"), []byte(settings), 0o600))
	folders := map[string]string{}
	for _, p := range trusted {
		folders[p] = "TRUST_FOLDER"
	}
	data, err := json.Marshal(folders)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "trustedFolders.json"), data, 0o600))
}

// OpenCode 1.18 on a model that answers (the fake model API as its
// Anthropic provider): a turn stopped with two Esc ends its answer's
// footer with "· interrupted": idle, interrupted, no "finished its turn".
// owt send: working at once, never idle before OpenCode draws its busy
// indicator (the stopped answer stays on screen meanwhile), and the turn
// that runs to its end is told once. (Offline, on its free model, it
// retries instead: TestRealOpenCodeAt80x24.)
func TestRealOpenCodeEscIsNoFinishedTurn(t *testing.T) {
	e := realEnv(t, "opencode")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	realOpenCodeHome(t, e, api.URL)
	canary := e.startCanary(repo)
	rec := e.recordStatuses(repo)

	s := e.newReal(repo, "o", "opencode", "wait forever")
	e.await(rec, "o", 0, seenStatus{Status: "working"}, func(st seenStatus) bool { return st.Status == "starting" || st.Status == "working" })
	e.Eventually(60*time.Second, "the model was asked", func() bool { return api.got("wait forever") })
	e.seeOnScreen(s, "Working on it.")
	e.noticeBarrier(repo, canary)
	from := rec.mark("o")
	// The first Esc arms the interrupt ("esc again to interrupt"), the
	// second, a moment later, stops the turn.
	for try := 0; try < 10 && !strings.Contains(e.Capture("="+s+":"), "· interrupted"); try++ {
		e.press(s, "Escape")
		time.Sleep(1500 * time.Millisecond)
	}
	e.seeOnScreen(s, "· interrupted")
	e.await(rec, "o", from, seenStatus{Status: "idle", Interrupted: true}, func(st seenStatus) bool {
		return st.Status == "working" || st.Status == "idle" && st.Interrupted
	})
	e.noticeBarrier(repo, canary)
	require.Zero(t, e.notices("owt: o finished its turn"), "Esc is no finished turn")

	from = rec.mark("o")
	e.MustOwt(repo, "send", "o", "say hi")
	for deadline := time.Now().Add(60 * time.Second); e.notices("owt: o finished its turn") != 1; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after owt send, no 'o finished its turn'; statuses %s; model asked for %q: %v\nscreen:\n%s\nowt log:\n%s",
				historyText(rec.history("o")), "say hi", api.got("say hi"), e.Capture("="+s+":"), e.OwtLog())
		}
	}
	e.Eventually(10*time.Second, "the recorder saw o idle", func() bool {
		h := rec.history("o")
		return len(h) > 0 && h[len(h)-1] == seenStatus{Name: "o", Status: "idle"}
	})
	h := rec.history("o")
	require.Equal(t, []seenStatus{{Name: "o", Status: "working"}, {Name: "o", Status: "idle"}}, h[from:], "after owt send: %s", historyText(h))
}

// realOpenCodeHome points OpenCode's Anthropic provider at the fake model
// API (its user config, $XDG_CONFIG_HOME/opencode/opencode.json) and makes
// its model the default.
func realOpenCodeHome(t *testing.T, e *Env, apiURL string) {
	t.Helper()
	dir := filepath.Join(e.Var("XDG_CONFIG_HOME"), "opencode")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	cfg, err := json.Marshal(map[string]any{
		"model": "anthropic/claude-sonnet-4-5",
		"provider": map[string]any{"anthropic": map[string]any{"options": map[string]any{
			"baseURL": apiURL + "/v1", "apiKey": "sk-ant-owt-test-not-a-key"}}},
	})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "opencode.json"), cfg, 0o600))
}

// typeKeyUntil types an API key into Gemini's key dialog and presses Enter
// until text shows. It acts only while the dialog is on screen: the key
// when the box is empty (a CLI under load may not have focused the field
// and dropped it: "API key cannot be empty"), Enter alone when the box
// holds it. Keys typed into whatever screen comes next would be taken as
// that screen's input (a 'k' moves a menu's choice), so once the dialog
// is gone it only waits: saving the key and signing in takes a while
// under load.
func (e *Env) typeKeyUntil(session, key, text string) {
	e.t.Helper()
	target := "=" + session + ":"
	const dialog = "Enter Gemini API Key"
	var typed, entered time.Time
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		screen := e.Capture(target)
		switch {
		case strings.Contains(screen, text):
			return
		case !strings.Contains(screen, dialog):
			// Signing in, or a screen of its own: not ours to type into.
		case strings.Contains(screen, key):
			// Gemini stores the key before it closes the box, seconds
			// under load: a second Enter too soon lands on the sign-in
			// menu it may draw again behind it ("API key cannot be
			// empty").
			if time.Since(entered) > 30*time.Second {
				e.Tmux("send-keys", "-t", target, "Enter")
				entered = time.Now()
			}
		case time.Since(typed) > 5*time.Second && time.Since(entered) > 5*time.Second:
			e.Tmux("send-keys", "-t", target, "-l", key)
			typed = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
	e.t.Fatalf("%s never showed %q after the key:\n%s", session, text, e.Capture(target))
}
