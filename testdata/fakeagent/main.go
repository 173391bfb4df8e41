// Command fakeagent plays the AI coding agent CLIs (Claude Code, Codex,
// Gemini CLI, OpenCode, Aider, Droid, Pi, Amp, cursor-agent) in owt's
// end-to-end tests, and is the demo agent of `make demo`.
//
// It behaves like the real TUIs where owt depends on them: it takes its
// first prompt the way each CLI does (argv, or typed once ready), ignores
// input that arrives while it starts, draws a banner, an input prompt, a
// spinner while working and permission prompts, reads raw keys with
// bracketed paste, and runs the hooks configured for the session exactly as
// the real tool would. The claude persona puts the prompt of a turn stopped
// with Esc before it drew anything back in its input box, as Claude Code
// 2.1.330 does when the model had not begun its answer. Prompts may script
// it, one command per line:
//
//	!ask [COMMAND]        show a permission prompt (1/y/Enter yes, 3/n/Esc no)
//	!write PATH [TEXT]    write a file (TEXT knows \n; default "fake change")
//	!commit MSG           git add -A && git commit -m MSG
//	!exec PROG ARGS...    run PROG with ARGS (split on spaces, no shell)
//	!mcp TOOL [JSON-ARGS] call TOOL of the MCP server named "owt", registered
//	                      the way the persona's tool reads MCP servers
//	                      (claude --mcp-config, codex -c mcp_servers.*,
//	                      gemini .gemini/settings.json, opencode its config
//	                      and OPENCODE_CONFIG_CONTENT), with the official
//	                      SDK's client over stdio; one session per process,
//	                      started on first use; the result is logged ("mcp")
//	                      and its first line shown
//	!sleep DUR            keep working for DUR (Go duration or seconds)
//	!think DUR            work for DUR before any answer: the claude persona
//	                      stopped then (Esc) leaves no mark on screen, as
//	                      Claude Code 2.1.330–2.1.332 does before its first
//	                      answer
//	!exit N               exit with code N once the turn is over
//	!fail [ERROR]         end the turn with an API error (Claude: StopFailure);
//	                      the claude persona's ERROR "Not logged in · Please
//	                      run /login" also puts "Not logged in · run /login"
//	                      in its footer until the next prompt, as Claude does
//	!usage IN OUT [CW CR] the turn's tokens: input, output, cache write, cache
//	                      read (default 100 50 1000 2000); the claude persona
//	                      writes every turn to its transcript at the
//	                      transcript_path its hooks name, in Claude Code's
//	                      format (a user line; the answer as two content-block
//	                      lines sharing one message id and its usage); the
//	                      codex persona to its rollout file under
//	                      $CODEX_HOME/sessions/YYYY/MM/DD/ (token_count
//	                      events with the running total); the gemini persona
//	                      to its chat file ~/.gemini/tmp/<id>/chats/ (the id
//	                      in ~/.gemini/projects.json), each message's tokens
//	!windows FIVE WEEK    the account has used FIVE % of its 5-hour and WEEK %
//	                      of its weekly usage window (resetting in 2 h and 3
//	                      days): the claude persona runs its settings'
//	                      statusLine command at the end of each turn with
//	                      Claude Code 2.1.330's JSON (rate_limits once set);
//	                      the codex persona writes them as its token_count's
//	                      rate_limits (primary, secondary)
//	!limit [RESET]        end the turn on a usage limit, in the tool's words
//	                      (Claude "⎿  You've hit your 5-hour limit · resets
//	                      RESET" and StopFailure rate_limit; Codex "■ You've
//	                      hit your usage limit. Try again at RESET."); RESET
//	                      defaults to the next whole minute (3:04pm, 3:04 PM)
//	!swallow-enter [N]    ignore the next N Enter keys (default 1), input kept,
//	                      screen unchanged, as a TUI busy redrawing drops one
//	!on-next LINE         hold LINE (itself a command, e.g. "!commit fix") for
//	                      the next prompt, which runs it before its own lines:
//	                      how a test makes owt's message drive the agent
//
// Resuming: the claude persona takes --resume ID (-r ID) as Claude Code
// 2.1.330 does: the session whose transcript exists in the project's
// folder (~/.claude/projects/<cwd as the tool names it>/ID.jsonl) goes
// on with its id and transcript, logged "resume", no prompt sent, its
// SessionStart hook's source "resume"; an unknown id prints "No
// conversation found with session ID: ID" and exits 1 ("resume_failed"
// logged). The gemini persona takes --resume ID of a session whose chat
// file exists (else "Invalid session identifier", exit 1). The codex
// persona takes `resume ID [PROMPT]` and any id; the
// opencode persona lists no sessions (`opencode session list`).
//
// Environment:
//
//	OWT_FAKE_PERSONA      persona to play; default: the program's name
//	                      (unknown names play "demo": Claude's screen, no hooks)
//	OWT_FAKE_LOG          append JSON lines recording everything to this file
//	OWT_FAKE_STARTUP      start-up delay before the ready screen (300ms);
//	                      input arriving meanwhile is dropped
//	OWT_FAKE_WORK         how long each turn works (1s)
//	OWT_FAKE_IDLE_NOTIFY  Claude's idle_prompt notification delay (60s, 0 = never)
//	OWT_FAKE_ANSWER       a file whose text is a headless run's answer on stdout
//	                      (in place of "Done: …"), as a real tool answers a question
//	OWT_FAKE_ANSWER_DELAY how long a headless run thinks before it answers (0),
//	                      as a slow tool does (owt's deadlines end it)
//	OWT_FAKE_RESUME_LINGER how long a resume that failed runs on after its
//	                      SessionEnd hook (0; Claude Code 2.1.330: ~0.2 s)
//	OWT_FAKE_PLAYBOOK     a file saying what to do for a prompt with no script
//	                      of its own: blank-line separated blocks of a match
//	                      line (found in the prompt's first line, or "*") and
//	                      script lines, $OWT_NAME the worktree's name
//	                      (playbook.go); how `make demo`'s agents work alone
//
// $HOME/.fakeagent.env, when it exists, holds OWT_FAKE_* settings as
// KEY=VALUE lines, taken where the environment has none: how a test
// reaches a fake run by owt's monitor, which drops OWT_* from its
// environment.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

func main() {
	os.Exit(run())
}

// app is one run of the fake agent.
type app struct {
	p          *persona
	opts       *options
	cwd        string
	log        *eventLog
	hooks      *hookRunner
	work       time.Duration
	idleNotify time.Duration
	bypass     bool
	headless   bool
	// openCodeSession is the OpenCode session id, once a turn ran
	// (only turns touch it: one goroutine at a time).
	openCodeSession string
	// suggestion is the prompt Claude Code suggests in its empty box
	// after a turn (claudeSuggestion), "" for none.
	suggestion string

	mu           sync.Mutex // guards the fields below
	st           screenState
	gen          int    // the current turn; bumped to orphan an interrupted one
	turnText     string // the prompt of the current turn
	turnShown    int    // the transcript's length once the prompt was echoed: longer once the turn drew something
	cancel       context.CancelFunc
	ending       bool // the current turn is ending: too late to interrupt it
	pasted       bool // the input holds pasted text
	allowAlways  bool
	idleSince    time.Time
	idleNotified bool
	timed        bool // the last frame drawn moves with time (draw)
	lastCtrlC    time.Time
	thinking     bool     // the turn is in a !think: no answer yet
	swallow      int      // Enter keys still to ignore (!swallow-enter)
	next         []string // script lines held for the next prompt (!on-next)
	width        int
	height       int

	mcp mcpClient // the session with the "owt" MCP server (!mcp)

	term   *terminal
	wake   chan struct{} // asks the main loop to redraw
	exitCh chan int      // a turn ran !exit
}

func run() int {
	loadEnvFile()
	p := lookupPersona(personaName())
	o := parseArgs(p.args, os.Args[1:])
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent:", err)
		return 1
	}
	log, err := openEventLog(os.Getenv("OWT_FAKE_LOG"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: OWT_FAKE_LOG:", err)
		return 1
	}
	defer log.close()

	a := &app{
		p: p, opts: o, cwd: cwd, log: log,
		work:       envDuration("OWT_FAKE_WORK", time.Second),
		idleNotify: envDuration("OWT_FAKE_IDLE_NOTIFY", time.Minute),
		bypass:     bypassPermissions(p, o),
		headless:   o.headless,
		st:         screenState{cwd: cwd},
		wake:       make(chan struct{}, 1),
		exitCh:     make(chan int, 1),
		suggestion: claudeSuggestion(p),
	}
	if p.name == "opencode" && len(o.positionals) > 1 && o.positionals[0] == "session" && o.positionals[1] == "list" {
		// `opencode session list --format json`: the fake keeps no
		// sessions, and OpenCode prints nothing when it has none.
		log.event("session_list", "argv", append([]string{}, os.Args[1:]...))
		return 0
	}
	a.hooks = newHookRunner(p, o, cwd, log)
	if ids := o.values["resume"]; len(ids) > 0 && !o.headless {
		if err := a.hooks.resume(ids[len(ids)-1]); err != nil {
			log.event("resume_failed", "session_id", ids[len(ids)-1], "error", err.Error())
			fmt.Fprintln(os.Stderr, err)
			// Claude Code 2.1.330 ends the session it could not take up
			// with SessionEnd, naming the id it was asked for.
			a.hooks.sessionID = ids[len(ids)-1]
			a.hooks.sessionEnd("other")
			// The real one takes ~0.2 s from that hook to its exit; a
			// test widens the gap to see what owt makes of it.
			time.Sleep(envDuration("OWT_FAKE_RESUME_LINGER", 0))
			return 1
		}
		log.event("resume", "session_id", a.hooks.sessionID)
	}

	mode := "interactive"
	if o.headless {
		mode = "headless"
	}
	log.event("start", "persona", p.name, "argv", append([]string{}, os.Args[1:]...), "cwd", cwd,
		"env", map[string]string{
			"OWT_NAME": os.Getenv("OWT_NAME"),
			"OWT_REPO": os.Getenv("OWT_REPO"),
			"OWT_PORT": os.Getenv("OWT_PORT"),
			// Claude Code's own switch of its prompt suggestions.
			"CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION": os.Getenv("CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION"),
		},
		"mode", mode, "prompt", o.prompt, "unknown_flags", append([]string{}, o.unknown...),
		"settings", append([]string{}, a.hooks.sources...), "session_id", a.hooks.sessionID)

	if o.headless {
		return a.runHeadless()
	}
	return a.runInteractive()
}

// loadEnvFile sets the OWT_FAKE_* settings of $HOME/.fakeagent.env the
// environment does not already have.
func loadEnvFile() {
	home, err := os.UserHomeDir()
	if err != nil {
		return
	}
	data, err := os.ReadFile(home + "/.fakeagent.env")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || !strings.HasPrefix(k, "OWT_FAKE_") {
			continue
		}
		if _, set := os.LookupEnv(k); !set {
			_ = os.Setenv(k, v)
		}
	}
}

// runHeadless is `claude -p`, `codex exec` and the like: one turn, one line
// of answer on stdout, exit.
func (a *app) runHeadless() int {
	prompt, source := a.opts.prompt, "argv"
	if prompt == "" && !term.IsTerminal(int(os.Stdin.Fd())) {
		data, _ := io.ReadAll(os.Stdin)
		prompt, source = strings.TrimRight(string(data), "\n"), "stdin"
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, "Error: no prompt given")
		a.log.event("exit", "code", 1)
		return 1
	}
	a.hooks.sessionStart()
	a.log.event("prompt", "text", prompt, "source", source)
	answer := a.runTurn(context.Background(), 0, prompt)
	if d := envDuration("OWT_FAKE_ANSWER_DELAY", 0); d > 0 {
		a.log.event("thinking", "for", d.String())
		time.Sleep(d)
	}
	if path := os.Getenv("OWT_FAKE_ANSWER"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeagent: OWT_FAKE_ANSWER:", err)
			return a.shutdown(1, "other", nil)
		}
		answer = strings.TrimRight(string(data), "\n")
	}
	fmt.Println(answer)
	code := 0
	select {
	case code = <-a.exitCh:
	default:
	}
	return a.shutdown(code, "other", nil)
}

func (a *app) runInteractive() int {
	fd := int(os.Stdin.Fd())
	tty := term.IsTerminal(fd)
	start := time.Now()

	// Start-up: like a real TUI, nothing reads the keyboard yet. What is
	// typed now is dropped once the terminal goes raw.
	var in <-chan []byte
	if !tty {
		in = startReader(os.Stdin)
	}
	a.hooks.sessionStart()
	time.Sleep(envDuration("OWT_FAKE_STARTUP", 300*time.Millisecond) - time.Since(start))

	var restore func()
	dropped := 0
	if tty {
		if old, err := term.MakeRaw(fd); err == nil {
			restore = func() { _ = term.Restore(fd, old) }
			defer restore()
		}
		dropped = drainTTY(fd)
		in = startReader(os.Stdin)
	} else {
		dropped = drainChan(in)
	}
	if dropped > 0 {
		a.log.event("dropped", "bytes", dropped)
	}

	sigCh := make(chan os.Signal, 4)
	signal.Notify(sigCh, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	defer signal.Stop(sigCh)

	a.term = &terminal{out: os.Stdout}
	_, _ = io.WriteString(os.Stdout, "\x1b[?2004h") // bracketed paste on
	a.mu.Lock()
	a.idleSince = time.Now()
	a.mu.Unlock()
	a.resize() // draws the ready screen
	a.log.event("ready")
	if a.opts.prompt != "" {
		a.mu.Lock()
		a.submitLocked(a.opts.prompt, "argv")
		a.mu.Unlock()
		a.draw()
	}

	var dec keyDecoder
	escTimer := time.NewTimer(time.Hour)
	escTimer.Stop()
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	ticking := true
	for {
		var keys []key
		select {
		case b, ok := <-in:
			if !ok { // end of input: a closed terminal is a hangup
				code := 0
				if tty {
					code = 128 + int(syscall.SIGHUP)
				}
				return a.shutdown(code, "other", restore)
			}
			keys = dec.feed(b)
			if dec.waiting() {
				escTimer.Reset(40 * time.Millisecond)
			}
		case <-escTimer.C:
			keys = dec.flush()
		case <-ticker.C:
			a.tick()
		case <-a.wake:
		case code := <-a.exitCh:
			a.draw()
			return a.shutdown(code, "other", restore)
		case s := <-sigCh:
			if s == syscall.SIGWINCH {
				a.resize()
				break
			}
			return a.shutdown(128+int(s.(syscall.Signal)), "other", restore)
		}
		for _, k := range keys {
			if exit, code := a.handleKey(k); exit {
				a.draw()
				return a.shutdown(code, "prompt_input_exit", restore)
			}
		}
		a.draw()
		// An idle TUI sleeps: nothing on its screen moves with time, and
		// 500 agents waking ten times a second were a busy machine.
		bound := a.timeBound()
		switch {
		case bound && !ticking:
			ticker.Reset(100 * time.Millisecond)
		case !bound && ticking:
			ticker.Stop()
		}
		ticking = bound
	}
}

// handleKey applies one key; it reports whether the agent exits, and how.
func (a *app) handleKey(k key) (exit bool, code int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if k.kind == keyCtrlC {
		if now.Sub(a.lastCtrlC) < time.Second {
			return true, 130
		}
		a.lastCtrlC = now
		a.st.hint, a.st.hintUntil = "Press Ctrl-C again to exit", now.Add(time.Second)
	}
	if a.st.mode == modeAsking {
		a.handleAskKey(k)
		return false, 0
	}

	switch k.kind {
	case keyRune:
		a.st.input = append(a.st.input, k.r)
	case keyPaste:
		a.st.input = append(a.st.input, []rune(k.text)...)
		a.pasted = true
	case keyNewline:
		a.st.input = append(a.st.input, '\n')
	case keyBackspace:
		if n := len(a.st.input); n > 0 {
			a.st.input = a.st.input[:n-1]
		}
	case keyCtrlU:
		a.st.input = nil
	case keyEnter:
		if a.swallow > 0 {
			a.swallow--
			a.log.event("swallowed", "key", "Enter")
			break
		}
		n := len(a.st.input)
		if n > 0 && a.st.input[n-1] == '\\' && a.p.backslashNewline {
			a.st.input[n-1] = '\n' // Claude-style "\ + Enter" newline
			break
		}
		text := string(a.st.input)
		if strings.TrimSpace(text) == "" {
			break
		}
		source := "typed"
		if a.pasted {
			source = "paste"
		}
		a.st.input, a.pasted = nil, false
		if t := strings.TrimSpace(text); t == "/exit" || t == "/quit" {
			a.log.event("prompt", "text", text, "source", source)
			return true, 0
		}
		if a.st.mode == modeWorking {
			a.log.event("queued", "text", text, "source", source)
			a.st.queued = append(a.st.queued, text)
			break
		}
		a.submitLocked(text, source)
	case keyEsc:
		a.stopLocked()
	case keyCtrlC:
		if a.st.mode == modeWorking {
			a.stopLocked()
		} else {
			a.st.input, a.pasted = nil, false
		}
	case keyCtrlD:
		if len(a.st.input) == 0 {
			return true, 0
		}
	case keyCtrlZ:
		// Like the real TUIs (crossterm's suspend): stop the process group
		// with SIGTSTP and carry on when continued.
		a.log.event("suspend")
		_ = syscall.Kill(0, syscall.SIGTSTP)
		a.log.event("resume")
		a.term.invalidate()
	}
	return false, 0
}

// handleAskKey answers the permission prompt on screen.
func (a *app) handleAskKey(k key) {
	ask := a.st.ask
	choice := -1
	switch k.kind {
	case keyRune:
		switch k.r {
		case '1', 'y', 'Y':
			choice = 0
		case '2', 'a', 'A':
			choice = 1
		case 'd', 'D': // aider: (D)on't ask again
			if a.p.name == "aider" {
				choice = 1
			}
		case '3', 'n', 'N':
			choice = 2
		}
	case keyEnter:
		choice = ask.selected
	case keyEsc, keyCtrlC:
		choice = 2
	case keyUp:
		ask.selected = max(ask.selected-1, 0)
	case keyDown:
		ask.selected = min(ask.selected+1, 2)
	}
	switch choice {
	case 0, 1:
		answer := "yes"
		if choice == 1 {
			answer = "always"
			a.allowAlways = true
		}
		a.log.event("ask", "command", ask.command, "answer", answer)
		a.st.mode, a.st.ask = modeWorking, nil
		ask.reply <- choice
	case 2:
		a.log.event("ask", "command", ask.command, "answer", "no")
		a.interruptLocked(a.p.rejected)
	}
}

// submitLocked starts a turn for text. a.mu must be held.
func (a *app) submitLocked(text, source string) {
	a.log.event("prompt", "text", text, "source", source)
	if len(a.st.transcript) > 0 {
		a.st.transcript = append(a.st.transcript, "")
	}
	for i, l := range strings.Split(text, "\n") {
		prefix := a.p.userPrefix
		if i > 0 {
			prefix = strings.Repeat(" ", runeLen(prefix))
		}
		a.st.transcript = append(a.st.transcript, prefix+l)
	}
	a.gen++
	a.turnText, a.turnShown = text, len(a.st.transcript)
	a.st.notice = ""
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel, a.ending = cancel, false
	a.st.mode, a.st.workStart = modeWorking, time.Now()
	go a.runTurn(ctx, a.gen, text)
}

// stopLocked stops the running turn as Esc does: interrupted; with
// restoreOnEsc, the prompt of a turn that drew nothing yet (Claude Code:
// the model had not begun its answer) goes back in the input box, before
// what was typed there. (Claude Code then also drops the prompt from its
// transcript and draws no "Interrupted" line; the fake keeps both, which
// owt's screen-status tests read, but in a !think, where it draws no
// line either.) a.mu must be held.
func (a *app) stopLocked() {
	restore := a.p.restoreOnEsc && a.st.mode == modeWorking && !a.ending && a.turnText != "" &&
		len(a.st.transcript) == a.turnShown
	prompt, line := a.turnText, a.p.interrupted
	if a.thinking && a.p.name == "claude" && a.st.mode == modeWorking && !a.ending {
		line = "" // in a !think, before its first answer: Claude marks nothing
	}
	if a.p.hooks == hooksGemini && a.st.mode == modeWorking && !a.ending {
		// Gemini CLI 0.61 ends a stream the user stopped as any other:
		// its AfterAgent hook fires after the cancel is on screen.
		go func() {
			time.Sleep(100 * time.Millisecond)
			a.hooks.fire("AfterAgent", "", map[string]any{"prompt": prompt, "prompt_response": "[no response text]",
				"stop_hook_active": false})
		}()
	}
	a.interruptLocked(line)
	if !restore {
		return
	}
	back := []rune(prompt)
	if len(a.st.input) > 0 {
		back = append(back, '\n')
	}
	a.st.input = append(back, a.st.input...)
	a.log.event("restored", "text", prompt)
}

// interruptLocked stops the running turn without any end-of-turn hook, as
// Esc does in the real tools. a.mu must be held.
func (a *app) interruptLocked(line string) {
	if a.st.mode == modeIdle || a.ending {
		return
	}
	a.cancel()
	a.gen++
	a.log.event("interrupt")
	a.st.mode, a.st.ask, a.thinking = modeIdle, nil, false
	if line != "" {
		a.st.transcript = append(a.st.transcript, line)
	}
	if len(a.st.queued) > 0 { // queued prompts go back to the input
		a.st.input = append([]rune(strings.Join(a.st.queued, "\n")), a.st.input...)
		a.st.queued = nil
	}
	a.idleSince, a.idleNotified = time.Now(), false
}

// beginTurnEnd records the answer of turn gen and makes it impossible to
// interrupt; false if the turn was interrupted already.
func (a *app) beginTurnEnd(gen int, answer string) bool {
	if a.headless {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if gen != a.gen {
		return false
	}
	a.ending = true
	if a.p.name == "claude" && strings.HasPrefix(answer, "API Error: Not logged in") {
		// Claude Code 2.1.330 after a turn it is not logged in for: its
		// footer says so until /login.
		a.st.notice = "Not logged in · run /login"
	}
	line := answer
	if a.p.bullet != "" && !strings.HasPrefix(answer, " ") && !strings.HasPrefix(answer, "■") {
		line = a.p.bullet + " " + answer // an indented answer, or Codex's error mark, is drawn as it is
	}
	a.st.transcript = append(a.st.transcript, line)
	a.poke()
	return true
}

// finishTurn returns to the idle prompt, then exits (!exit) or starts the
// next queued prompt.
func (a *app) finishTurn(gen, exitCode int) {
	if !a.headless {
		a.mu.Lock()
		if gen != a.gen {
			a.mu.Unlock()
			return
		}
		a.ending = false
		a.st.mode = modeIdle
		if a.suggestion != "" {
			a.p.placeholder = a.suggestion
		}
		a.idleSince, a.idleNotified = time.Now(), false
		if exitCode < 0 && len(a.st.queued) > 0 {
			next := a.st.queued[0]
			a.st.queued = a.st.queued[1:]
			a.submitLocked(next, "queued")
		}
		a.poke()
		a.mu.Unlock()
	}
	if exitCode >= 0 {
		select {
		case a.exitCh <- exitCode:
		default:
		}
	}
}

// say adds a transcript line for turn gen (stderr when headless).
func (a *app) say(gen int, line string) {
	if a.headless {
		fmt.Fprintln(os.Stderr, line)
		return
	}
	a.update(gen, func() { a.st.transcript = append(a.st.transcript, line) })
}

// update runs fn under the lock if turn gen is still the current one.
func (a *app) update(gen int, fn func()) bool {
	if a.headless {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if gen != a.gen {
		return false
	}
	fn()
	a.poke()
	return true
}

// poke asks the main loop to redraw.
func (a *app) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// tick runs what is due by time.
func (a *app) tick() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.idleNotifyDue() && time.Since(a.idleSince) >= a.idleNotify {
		a.idleNotified = true
		go a.hooks.idlePrompt()
	}
}

func (a *app) idleNotifyDue() bool {
	return a.st.mode == modeIdle && !a.idleNotified && a.idleNotify > 0
}

// timeBound reports whether anything waits on time: the last frame moves
// with it (a spinner, a hint still shown), or an idle notice is due.
func (a *app) timeBound() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.timed || a.idleNotifyDue()
}

func (a *app) draw() {
	a.mu.Lock()
	now := time.Now()
	f := render(a.p, &a.st, a.width, a.height, now)
	a.timed = a.st.mode == modeWorking || a.st.hint != "" && now.Before(a.st.hintUntil)
	a.mu.Unlock()
	a.term.draw(f)
}

func (a *app) resize() {
	w, h, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil || w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	a.mu.Lock()
	a.width, a.height = w, h
	a.mu.Unlock()
	a.term.invalidate()
	a.draw()
}

// shutdown ends the session: SessionEnd hooks, the exit record, the
// terminal back to normal. The last screen stays visible.
func (a *app) shutdown(code int, reason string, restore func()) int {
	a.mu.Lock()
	if a.cancel != nil {
		a.cancel()
	}
	a.gen++
	a.mu.Unlock()
	a.hooks.sessionEnd(reason)
	a.hooks.wait(5 * time.Second)
	a.mcp.close()
	a.log.event("exit", "code", code, "reason", reason)
	if a.term != nil { // leave the cursor under the last screen
		fmt.Fprintf(os.Stdout, "\x1b[?2004l\x1b[?25h\x1b[%d;1H\r\n", a.term.rows)
	}
	if restore != nil {
		restore()
	}
	return code
}

// startReader copies the input to a channel, closed at end of input.
func startReader(f *os.File) <-chan []byte {
	ch := make(chan []byte, 64)
	go func() {
		defer close(ch)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				ch <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// drainTTY reads and drops whatever is waiting in the terminal's input
// queue (typed during start-up) and returns how many bytes that was.
func drainTTY(fd int) int {
	total := 0
	for {
		n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
		if err != nil || n <= 0 {
			return total
		}
		buf := make([]byte, n)
		m, err := unix.Read(fd, buf)
		if m > 0 {
			total += m
		}
		if err != nil || m <= 0 {
			return total
		}
	}
}

func drainChan(ch <-chan []byte) int {
	total := 0
	for {
		select {
		case b, ok := <-ch:
			if !ok {
				return total
			}
			total += len(b)
		default:
			return total
		}
	}
}

func envDuration(name string, def time.Duration) time.Duration {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d
	}
	if d := parseDuration(v, time.Second); d > 0 || v == "0" {
		return d
	}
	return def
}

// claudeSuggestion is the prompt suggestion Claude Code (2.1.330) draws,
// dimmed, in its empty input box once a turn ends, when the account's
// server-side flag allows it (played here by OWT_FAKE_SUGGESTION) and
// CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION is not false: the variable comes
// first, "0", "false", "no" and "off" turning them off.
func claudeSuggestion(p *persona) string {
	if p.name != "claude" {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION"))) {
	case "0", "false", "no", "off":
		return ""
	}
	return os.Getenv("OWT_FAKE_SUGGESTION")
}
