package main

import (
	"os"
	"path/filepath"
	"strings"
)

// A persona is one agent CLI the fake agent imitates: how it reads its argv,
// how its screen looks and which hooks it runs.
//
// The patterns of every persona are tested against its rendered screens
// (see TestPersonaPatterns). A classifier should test them in the order
// waiting, working, ready: a working agent keeps its input box on screen
// (you can type ahead), so ready also matches a working screen for most
// personas. Patterns are Go regexps applied to `tmux capture-pane -p` text.
type persona struct {
	name  string
	hooks hookKind
	args  argSpec

	banner      []string // "{cwd}" is replaced by the working directory
	bannerBoxed bool
	bannerSGR   string // style of the first banner line

	input       inputStyle
	prefix      string // input prompt, e.g. "> "
	placeholder string // shown dimmed when the input is empty
	footer      string // line under the input while idle
	// inputWhileWorking keeps the input on screen during a turn (type-ahead).
	inputWhileWorking bool
	// backslashNewline makes "\" + Enter a newline, as in Claude Code.
	backslashNewline bool
	// restoreOnEsc: the prompt of a turn stopped with Esc (or Ctrl-C)
	// before it drew anything goes back in the input box, before what
	// was typed there, as Claude Code 2.1.330 does when the model had
	// not begun its answer ("❯ say hi" in the box).
	restoreOnEsc bool

	userPrefix  string // how a submitted prompt is echoed in the transcript
	bullet      string // prefix of assistant and tool lines
	spinner     []string
	working     string // fmt format: %[1]s spinner frame, %[2]d seconds
	interrupted string // transcript line after Esc
	rejected    string // transcript line after a "no" to a permission prompt

	ask askStyle

	patterns patterns
}

// patterns are the regexps that classify a capture of the persona's pane.
type patterns struct {
	ready   string // input prompt shown: ready for a prompt, idle after a turn
	working string // a turn is running
	waiting string // a permission prompt needs an answer
}

type inputStyle int

const (
	inputRounded inputStyle = iota // ╭─╮ │ > text │ ╰─╯
	inputSquare                    // ┌─┐ │ > text │ └─┘
	inputBar                       // ┃ > text (opencode)
	inputRules                     // ─── > text ─── (pi)
	inputPlain                     // "› text" (codex)
	inputAider                     // a rule, then "> text" as the last line
)

// askStyle draws a permission prompt. Options are always, in order:
// allow once, allow always, deny.
type askStyle struct {
	title    string // header line before the command, "" for none
	tool     string // display name of the shell tool in the title
	question string
	options  [3]string
	selector string // marks the selected option
	numbered bool
	boxed    bool
	cmdFmt   string // how the command is shown, %s = command
	footer   string
	inline   string // aider: a one-line question instead of a menu
}

func lookupPersona(name string) *persona {
	if p, ok := personas[name]; ok {
		return p
	}
	return personas["demo"]
}

// personaName picks the persona: $OWT_FAKE_PERSONA, else the program name.
func personaName() string {
	if v := os.Getenv("OWT_FAKE_PERSONA"); v != "" {
		return v
	}
	base := filepath.Base(os.Args[0])
	return strings.TrimSuffix(base, ".exe")
}

var claudeArgs = newArgSpec(
	[]string{"--permission-mode", "--settings", "--model", "--add-dir", "--allowedTools,--allowed-tools",
		"--disallowedTools,--disallowed-tools", "--append-system-prompt", "--system-prompt",
		"--output-format", "--input-format", "--session-id", "--resume,-r", "--mcp-config",
		"--fallback-model", "--agents", "--setting-sources", "--max-turns"},
	[]string{"--dangerously-skip-permissions", "--print,-p", "--continue,-c", "--verbose", "--ide"},
	argRules{promptPositional: true, headlessBool: "print"},
)

var personas = map[string]*persona{
	// claude
	//   ready:   `(?m)^│ > `
	//   working: `esc to interrupt`
	//   waiting: `Do you want to proceed\?`
	"claude": {
		name: "claude", hooks: hooksClaude, args: claudeArgs,
		banner: []string{"✻ Welcome to Claude Code!", "", "  /help for help, /status for your current setup",
			"", "  cwd: {cwd}"},
		bannerBoxed: true, bannerSGR: "38;5;173",
		input: inputRounded, prefix: "> ", footer: "  ? for shortcuts",
		inputWhileWorking: true, backslashNewline: true, restoreOnEsc: true,
		userPrefix: "> ", bullet: "●", spinner: []string{"·", "✢", "✳", "✶", "✻", "✽"},
		working:     "%[1]s Working… (%[2]ds · esc to interrupt)",
		interrupted: "  ⎿  Interrupted · What should Claude do instead?", rejected: "  ⎿  User rejected the command", // Claude Code 2.1.330–2.1.332
		ask: askStyle{title: "Bash command", question: "Do you want to proceed?", selector: "❯", numbered: true,
			options: [3]string{"Yes", "Yes, and don't ask again this session",
				"No, and tell Claude what to do differently (esc)"}, cmdFmt: "   %s"},
		patterns: patterns{ready: `(?m)^│ > `, working: `esc to interrupt`, waiting: `Do you want to proceed\?`},
	},

	// demo (any other program name): Claude Code's screen, no hooks.
	//   ready:   `(?m)^│ > `
	//   working: `esc to interrupt`
	//   waiting: `Do you want to proceed\?`
	"demo": {
		name: "demo", hooks: hooksNone, args: claudeArgs,
		banner: []string{"✻ Welcome to the owt demo agent!", "",
			"  A stand-in agent. Besides plain tasks it understands, one per line:",
			"  !ask  !write PATH [TEXT]  !commit MSG  !sleep DUR  !exit N", "", "  cwd: {cwd}"},
		bannerBoxed: true, bannerSGR: "38;5;173",
		input: inputRounded, prefix: "> ", footer: "  ? for shortcuts",
		inputWhileWorking: true, backslashNewline: true,
		userPrefix: "> ", bullet: "●", spinner: []string{"·", "✢", "✳", "✶", "✻", "✽"},
		working:     "%[1]s Working… (%[2]ds · esc to interrupt)",
		interrupted: "  ⎿  Interrupted · What should the agent do instead?", rejected: "  ⎿  User rejected the command",
		ask: askStyle{title: "Bash command", question: "Do you want to proceed?", selector: "❯", numbered: true,
			options: [3]string{"Yes", "Yes, and don't ask again this session",
				"No, and tell the agent what to do differently (esc)"}, cmdFmt: "   %s"},
		patterns: patterns{ready: `(?m)^│ > `, working: `esc to interrupt`, waiting: `Do you want to proceed\?`},
	},

	// codex
	//   ready:   `⏎ send`
	//   working: `esc to interrupt`
	//   waiting: `Allow command\?`
	"codex": {
		name: "codex", hooks: hooksCodex,
		args: newArgSpec(
			[]string{"--config,-c", "--sandbox,-s", "--ask-for-approval,-a", "--model,-m", "--cd,-C",
				"--image,-i", "--profile,-p", "--output-last-message,-o"},
			[]string{"--dangerously-bypass-approvals-and-sandbox,--yolo", "--full-auto", "--search",
				"--skip-git-repo-check", "--json"},
			argRules{promptPositional: true, headlessSub: []string{"exec", "e"}, resumeSub: "resume"},
		),
		banner: []string{">_ OpenAI Codex (v0.0.0-fake)", "", "model:     fake-codex   /model to change",
			"directory: {cwd}"},
		bannerBoxed: true, bannerSGR: "1",
		input: inputPlain, prefix: "› ", placeholder: "Ask Codex to do anything",
		footer: "  ⏎ send   ⌃J newline   ⌃T transcript   ⌃C quit", inputWhileWorking: true,
		userPrefix: "▌ ", bullet: "•", spinner: []string{"•", "◦"},
		working:     "%[1]s Working (%[2]ds • esc to interrupt)",
		interrupted: "■ Conversation interrupted - tell the model what to do differently",
		rejected:    "✗ You did not approve the command",
		ask: askStyle{question: "Allow command?", selector: "›", numbered: true,
			options: [3]string{"Yes, proceed", "Yes, and don't ask again for this command",
				"No, and tell Codex what to do differently (esc)"},
			cmdFmt: "  $ %s", footer: "  Press enter to confirm or esc to cancel"},
		patterns: patterns{ready: `⏎ send`, working: `esc to interrupt`, waiting: `Allow command\?`},
	},

	// gemini
	//   ready:   `(?m)^│ > `
	//   working: `esc to cancel`
	//   waiting: `Allow execution\?`
	"gemini": {
		name: "gemini", hooks: hooksGemini,
		args: newArgSpec(
			[]string{"--prompt-interactive,-i", "--prompt,-p", "--approval-mode", "--model,-m",
				"--include-directories", "--output-format,-o", "--extensions,-e", "--resume,-r"},
			[]string{"--yolo,-y", "--sandbox,-s", "--debug,-d", "--checkpointing"},
			argRules{headlessPositional: true, headlessValue: "prompt", promptValue: "prompt-interactive"},
		),
		banner: []string{"✦ Gemini CLI (fake)", "", "Tips for getting started:",
			"1. Ask questions, edit files, or run commands.", "2. Be specific for the best results.",
			"3. /help for more information."},
		bannerSGR: "38;5;75",
		input:     inputRounded, prefix: "> ", placeholder: "  Type your message or @path/to/file",
		footer:            "{cwd}   no sandbox (see /docs)   fake-gemini (100% context left)",
		inputWhileWorking: true,
		userPrefix:        "> ", bullet: "✦", spinner: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"},
		working:     "%[1]s Working… (esc to cancel, %[2]ds)",
		interrupted: "ℹ Request cancelled.", rejected: "✕ Tool call cancelled by user",
		ask: askStyle{title: "?  Shell", question: "Allow execution?", selector: "●", numbered: true, boxed: true,
			options: [3]string{"Yes, allow once", "Yes, allow always", "No, suggest changes (esc)"},
			cmdFmt:  "   %s"},
		patterns: patterns{ready: `(?m)^│ > `, working: `esc to cancel`, waiting: `Allow execution\?`},
	},

	// aider (no initial prompt argument)
	//   ready:   `(?m)^>[^\n]*\s*\z` (the prompt is the last non-blank line)
	//   working: `Waiting for fake-model`
	//   waiting: `\(Y\)es/\(N\)o`
	"aider": {
		name: "aider", hooks: hooksNone,
		args: newArgSpec(
			[]string{"--message,--msg,-m", "--message-file,-f", "--model", "--edit-format", "--read",
				"--file", "--weak-model", "--editor-model", "--api-key", "--set-env"},
			[]string{"--yes-always", "--no-git", "--no-auto-commits", "--auto-commits", "--dark-mode",
				"--light-mode", "--no-pretty", "--architect"},
			argRules{headlessValue: "message"},
		),
		banner: []string{"Aider v0.0.0-fake", "Main model: fake-model with diff edit format",
			"Git repo: {cwd}", "Repo-map: disabled",
			`Use /help <question> for help, run "aider --help" to see cmd line args`},
		input: inputAider, prefix: "> ",
		userPrefix: "> ", bullet: "", spinner: []string{"░█", "█░"},
		working:     "%[1]s Waiting for fake-model",
		interrupted: "^C KeyboardInterrupt", rejected: "Skipped the command.",
		ask: askStyle{inline: "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ", cmdFmt: "%s"},
		patterns: patterns{ready: `(?m)^>[^\n]*\s*\z`, working: `Waiting for fake-model`,
			waiting: `\(Y\)es/\(N\)o`},
	},

	// opencode
	//   ready:   `enter send`
	//   working: `esc interrupt`
	//   waiting: `Permission required`
	"opencode": {
		name: "opencode", hooks: hooksNone,
		args: newArgSpec(
			[]string{"--prompt", "--agent", "--model,-m", "--session,-s", "--port", "--hostname"},
			[]string{"--continue,-c", "--print-logs"},
			argRules{headlessSub: []string{"run"}, promptValue: "prompt"},
		),
		banner: []string{"  ▄▀▀ opencode v0.0.0-fake", "", "  /new      new session",
			"  /help     show help", "  /models   list models"},
		bannerSGR: "1",
		input:     inputBar, prefix: "> ", footer: "  enter send   ctrl+p commands   Build · fake-model",
		inputWhileWorking: true,
		userPrefix:        "┃ ", bullet: "●", spinner: []string{"■⬝⬝⬝", "⬝■⬝⬝", "⬝⬝■⬝", "⬝⬝⬝■"},
		working:     "%[1]s Working…  %[2]ds  esc interrupt",
		interrupted: "     ▣  Build · Fake Model · interrupted", rejected: "  Permission rejected", // OpenCode 1.18's footer of a stopped answer
		ask: askStyle{title: "△ Permission required", tool: "bash", selector: "❯", numbered: true,
			options: [3]string{"Allow once", "Allow always", "Reject"}, cmdFmt: "  $ %s"},
		patterns: patterns{ready: `enter send`, working: `esc interrupt`, waiting: `Permission required`},
	},

	// droid (Claude-like hooks in .factory/)
	//   ready:   `\? for help`
	//   working: `esc to stop`
	//   waiting: `Allow this action\?`
	"droid": {
		name: "droid", hooks: hooksDroid,
		args: newArgSpec(
			[]string{"--auto", "--model,-m", "--output-format,-o", "--file,-f", "--cwd", "--session-id,-s",
				"--reasoning-effort,-r"},
			[]string{"--skip-permissions-unsafe", "--resume"},
			argRules{promptPositional: true, headlessSub: []string{"exec"}},
		),
		banner:      []string{"◆ Welcome to Droid! (fake)", "", "  model: fake-model", "  cwd: {cwd}"},
		bannerBoxed: true, bannerSGR: "38;5;208",
		input: inputSquare, prefix: "> ", footer: "  ? for help · auto: off", inputWhileWorking: true,
		userPrefix: "> ", bullet: "●", spinner: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"},
		working:     "%[1]s Thinking… (%[2]ds · esc to stop)",
		interrupted: "  ⎿  Interrupted by user", rejected: "  ⎿  Action cancelled",
		ask: askStyle{question: "Allow this action?", selector: "❯", numbered: true,
			options: [3]string{"Yes, allow", "Yes, always allow", "No, cancel (esc)"}, cmdFmt: "  Execute: %s"},
		patterns: patterns{ready: `\? for help`, working: `esc to stop`, waiting: `Allow this action\?`},
	},

	// pi
	//   ready:   `/help for commands`
	//   working: `esc to interrupt`
	//   waiting: `Allow tool call\?`
	"pi": {
		name: "pi", hooks: hooksNone,
		args: newArgSpec(
			[]string{"--model", "--provider", "--session", "--thinking", "--mode", "--append-system-prompt",
				"--api-key"},
			[]string{"--print,-p", "--continue,-c", "--resume,-r", "--no-session"},
			argRules{promptPositional: true, headlessBool: "print"},
		),
		banner:    []string{"pi v0.0.0-fake", "  model fake-model · cwd {cwd}"},
		bannerSGR: "1",
		input:     inputRules, prefix: "> ", footer: "  pi · fake-model · /help for commands",
		inputWhileWorking: true,
		userPrefix:        "> ", bullet: "•", spinner: []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"},
		working:     "%[1]s Working... (%[2]ds, esc to interrupt)",
		interrupted: "  Aborted", rejected: "  Tool call denied",
		ask: askStyle{question: "Allow tool call?", selector: ">", numbered: true,
			options: [3]string{"Yes", "Always", "No (esc)"}, cmdFmt: "  bash: %s"},
		patterns: patterns{ready: `/help for commands`, working: `esc to interrupt`, waiting: `Allow tool call\?`},
	},

	// amp (no initial prompt argument)
	//   ready:   `ctrl\+o commands`
	//   working: `esc to cancel`
	//   waiting: `Allow this command\?`
	"amp": {
		name: "amp", hooks: hooksNone,
		args: newArgSpec(
			[]string{"--execute,-x", "--mode,-m", "--settings-file", "--log-level"},
			[]string{"--dangerously-allow-all", "--stream-json", "--no-notifications"},
			argRules{headlessValue: "execute"},
		),
		banner:      []string{"Welcome to Amp (fake)", "", "  cwd: {cwd}"},
		bannerBoxed: true, bannerSGR: "38;5;41",
		input: inputRounded, prefix: "> ", footer: "  ctrl+o commands · ctrl+c twice to quit",
		inputWhileWorking: true,
		userPrefix:        "> ", bullet: "∴", spinner: []string{"≋", "≈", "∼"},
		working:     "%[1]s Running… (%[2]ds · esc to cancel)",
		interrupted: "  Cancelled", rejected: "  Command denied",
		ask: askStyle{question: "Allow this command?", selector: "▸", numbered: true,
			options: [3]string{"Allow", "Allow all for this session", "Deny (esc)"}, cmdFmt: "  $ %s"},
		patterns: patterns{ready: `ctrl\+o commands`, working: `esc to cancel`, waiting: `Allow this command\?`},
	},

	// cursor-agent
	//   ready:   `/ commands · @ files`
	//   working: `ctrl\+c to stop`
	//   waiting: `Run this command\?`
	"cursor-agent": {
		name: "cursor-agent", hooks: hooksNone,
		args: newArgSpec(
			[]string{"--model,-m", "--output-format", "--api-key", "--resume"},
			[]string{"--print,-p", "--force,-f", "--background,-b"},
			argRules{promptPositional: true, headlessBool: "print"},
		),
		banner:      []string{"Cursor Agent (fake)", "", "  {cwd}"},
		bannerBoxed: true, bannerSGR: "1",
		input: inputSquare, prefix: "> ", placeholder: "Plan, search, build anything",
		footer: "  / commands · @ files · ! shell", inputWhileWorking: true,
		userPrefix: "> ", bullet: "◇", spinner: []string{"◐", "◓", "◑", "◒"},
		working:     "%[1]s Generating… %[2]ds  ctrl+c to stop",
		interrupted: "  Stopped", rejected: "  Skipped",
		ask: askStyle{question: "Run this command?", selector: "→", numbered: true,
			options: [3]string{"Run (once) (y)", "Run (always)", "Skip (esc or n)"}, cmdFmt: "  $ %s"},
		patterns: patterns{ready: `/ commands · @ files`, working: `ctrl\+c to stop`, waiting: `Run this command\?`},
	},
}

// argRules says where a persona's CLI takes its prompts.
type argRules struct {
	promptPositional   bool     // positionals are the initial interactive prompt
	headlessPositional bool     // positionals are a one-shot prompt (gemini)
	headlessSub        []string // a first positional that makes the run headless (exec, run)
	headlessBool       string   // a boolean flag that makes it headless; prompt from positionals (-p)
	headlessValue      string   // a flag whose value is a one-shot prompt (gemini -p, aider --message)
	promptValue        string   // a flag whose value is the initial interactive prompt (gemini -i)
	resumeSub          string   // a first positional that resumes the session named next (codex resume ID [PROMPT])
}

type argSpec struct {
	value map[string]string // spelling -> canonical name, flags that take a value
	bool  map[string]string // spelling -> canonical name, flags that do not
	argRules
}

// newArgSpec builds a spec from flag lists; each entry is "--long,-s,..."
// and the canonical name is the first spelling without its dashes.
func newArgSpec(values, bools []string, rules argRules) argSpec {
	s := argSpec{value: map[string]string{}, bool: map[string]string{}, argRules: rules}
	add := func(m map[string]string, entries []string) {
		for _, e := range entries {
			names := strings.Split(e, ",")
			canon := strings.TrimLeft(names[0], "-")
			for _, n := range names {
				m[n] = canon
			}
		}
	}
	add(s.value, values)
	add(s.bool, bools)
	return s
}

// options is what the fake agent understood from its argv.
type options struct {
	prompt      string // initial prompt of an interactive run
	headless    bool
	values      map[string][]string
	bools       map[string]bool
	positionals []string
	unknown     []string // flags this persona does not know, ignored
}

func (o *options) last(name string) string {
	v := o.values[name]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

func parseArgs(s argSpec, args []string) *options {
	o := &options{values: map[string][]string{}, bools: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.positionals = append(o.positionals, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			o.positionals = append(o.positionals, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		if canon, ok := s.value[name]; ok {
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
			o.values[canon] = append(o.values[canon], val)
			continue
		}
		if canon, ok := s.bool[name]; ok {
			o.bools[canon] = true
			continue
		}
		o.unknown = append(o.unknown, a)
	}

	pos := o.positionals
	switch {
	case len(pos) > 0 && contains(s.headlessSub, pos[0]):
		o.headless = true
		o.prompt = strings.Join(pos[1:], " ")
	case s.headlessBool != "" && o.bools[s.headlessBool]:
		o.headless = true
		o.prompt = strings.Join(pos, " ")
	case s.headlessValue != "" && len(o.values[s.headlessValue]) > 0:
		o.headless = true
		o.prompt = o.last(s.headlessValue)
	case s.promptValue != "" && len(o.values[s.promptValue]) > 0:
		o.prompt = o.last(s.promptValue)
	case s.resumeSub != "" && len(pos) > 1 && pos[0] == s.resumeSub:
		o.values["resume"] = append(o.values["resume"], pos[1])
		o.prompt = strings.Join(pos[2:], " ")
	case s.headlessPositional && len(pos) > 0:
		o.headless = true
		o.prompt = strings.Join(pos, " ")
	case s.promptPositional:
		o.prompt = strings.Join(pos, " ")
	}
	return o
}

// bypassPermissions reports whether the run was started with the persona's
// "never ask" flag; permission prompts are then approved without asking,
// as the real tools do.
func bypassPermissions(p *persona, o *options) bool {
	switch p.name {
	case "claude", "demo":
		return o.bools["dangerously-skip-permissions"] || o.last("permission-mode") == "bypassPermissions"
	case "codex":
		return o.bools["dangerously-bypass-approvals-and-sandbox"] || o.last("ask-for-approval") == "never"
	case "gemini":
		return o.bools["yolo"] || o.last("approval-mode") == "yolo"
	case "droid":
		return o.bools["skip-permissions-unsafe"]
	case "cursor-agent":
		return o.bools["force"]
	case "aider":
		return o.bools["yes-always"]
	case "amp":
		return o.bools["dangerously-allow-all"]
	}
	return false
}

// permissionMode is the permission_mode field of Claude-style hook events.
func permissionMode(p *persona, o *options) string {
	if m := o.last("permission-mode"); m != "" {
		return m
	}
	if bypassPermissions(p, o) {
		return "bypassPermissions"
	}
	return "default"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
