// Package agent knows the AI coding tools owt can run: how to start each one
// (interactive, plan/read-only, headless), how to tell whether it is
// installed, what its screen looks like while it works, waits for the user
// or sits idle, what each of its hook events says (hookevent.go: the
// status, session, wait, failed turn or usage limit an event reports), and
// (in later files) how to install its hooks and how it learns about owt's
// MCP server. What a hook event says lives here, beside what the tool's
// screen says, because both are knowledge of the tool; package hook, which
// applies an event to its record, sits above and imports it.
//
// A Profile is plain data. The built-in profiles below can be overridden,
// field by field, by [tools.NAME] tables in the config, and new tools can be
// added there.
//
// Screen patterns (Ready, Working, Waiting, Idle) are regular expressions
// over the visible text of the agent's pane, matched in multiline mode:
// CompilePattern adds (?m) when a pattern does not already start with flags
// that include it. They are written to be matched in this order:
//
//	Waiting  a permission prompt or question is on screen: the user is needed
//	Working  the tool's busy indicator ("esc to interrupt", spinner text)
//	Idle     the input prompt is showing
//
// Most tools keep their input box on screen while they work, so Idle alone
// also matches a working screen; only the order above makes it meaningful.
// Ready is the pattern that says the TUI accepts input; owt waits for it
// before pasting the first prompt into tools that cannot take it as an
// argument.
package agent

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

// PromptMode says how the first prompt reaches the tool.
type PromptMode string

const (
	// PromptArg passes the task on the command line: as the last argument,
	// or after PromptFlag when the tool wants a flag.
	PromptArg PromptMode = "arg"
	// PromptPaste starts the tool without the task and pastes it once the
	// Ready pattern shows.
	PromptPaste PromptMode = "paste"
	// PromptNone never delivers the task to the tool.
	PromptNone PromptMode = "none"
)

// Valid reports whether m is one of the known modes.
func (m PromptMode) Valid() bool {
	switch m {
	case PromptArg, PromptPaste, PromptNone:
		return true
	}
	return false
}

// Profile is everything owt knows about one tool.
type Profile struct {
	Name string
	// Command is the argv prefix; Command[0] is looked up on PATH.
	Command []string
	Prompt  PromptMode
	// PromptFlag goes before the task when Prompt is "arg" ("-i" for
	// gemini, "--prompt" for opencode); "" passes the task positionally.
	PromptFlag string
	// Plan holds the arguments for plan / read-only mode; nil means the tool
	// has none.
	Plan []string
	// ReadOnly holds the arguments of a mode in which the tool itself
	// refuses to change files (a swarm's researcher and reviewer); nil
	// means the tool has none, and owt refuses those roles for it. Not
	// configurable: it is a promise owt checked against the tool.
	ReadOnly []string
	// Resume holds the arguments that start the tool on one of its own
	// earlier sessions, ResumeSession standing for its id; they go right
	// after Command. nil: the tool cannot resume one by id, and owt starts
	// it fresh with an account of the work instead. Not configurable: owt
	// checked each against the tool's code at the pinned version.
	Resume []string
	// Approve holds the skip-permission arguments, added only when the user
	// turned auto_approve on.
	Approve []string
	// Headless is the argv prefix of a one-shot run; the task is appended.
	Headless []string
	// HeadlessStdin: the one-shot adds what it reads on stdin to its
	// prompt (claude -p, codex exec, gemini -p), so a prompt too long
	// for one argument goes there.
	HeadlessStdin bool
	// Screen patterns; see the package documentation. "" never matches.
	Ready, Working, Waiting, Idle string
	// StatusBar matches the tool's own status-bar lines (footer hints,
	// model, context and path lines); the classifier ignores them when it
	// looks for Working and Waiting, so a branch or folder name shown there
	// cannot pass for a spinner or a question.
	StatusBar string
	// Placeholder matches the whole text the tool shows in its empty
	// input box (a hint, dimmed on screen), so InputText reads it as
	// empty. Not configurable: checked against each tool's screens.
	Placeholder string
	// Env is set in the tool's environment when the user's does not set
	// it already: switches of the tool's own that would otherwise put
	// text in its input box owt cannot tell from a draft. Not
	// configurable: checked against each tool.
	Env []string
	// InstallHint tells the user how to install the tool.
	InstallHint string
	// Hooks names the hook installer that applies: "claude", "codex",
	// "gemini", "droid" or "" (screen only).
	Hooks string
	// MCP names how the tool registers MCP servers, so it gets owt mcp:
	// MCPClaude, MCPCodex, MCPGemini, MCPOpenCode, or "" (none; see mcp.go).
	MCP string
	// MCPOff keeps owt mcp away from this tool ([tools.X] mcp = false).
	MCPOff bool
}

// Sentinel errors wrapped by Resolve and Argv.
var (
	ErrNotInstalled = errors.New("tool is not installed")
	ErrUnknownTool  = errors.New("unknown tool")
	ErrNoPlanMode   = errors.New("tool has no plan mode")
	ErrNoHeadless   = errors.New("tool has no headless mode")
)

// Auto is the tool name that means "the first installed tool".
const Auto = "auto"

// Shared pattern pieces.
const (
	// An input prompt line: optional box border, a prompt character, then
	// nothing or text that does not start with a digit (so a selected menu
	// entry such as "❯ 1. Yes" is not taken for the input prompt).
	promptLine = `^[ \t]*(?:[│┃|][ \t]*)?[>❯›](?:[ \t\x{a0}]*$|[ \t\x{a0}]+[^\d\s])`
)

// Builtins returns the built-in profiles in the order "auto" tries them.
//
// Flags were checked against each tool's own documentation (cited per
// profile); screen text against the tools' sources or captured screens as
// quoted by the projects named.
func Builtins() []Profile {
	return []Profile{
		{
			// Claude Code CLI reference and permission-modes docs:
			// `claude "prompt"` starts the TUI with a first turn;
			// --permission-mode plan; --dangerously-skip-permissions;
			// `claude -p` prints and exits.
			Name:     "claude",
			Command:  []string{"claude"},
			Prompt:   PromptArg,
			Plan:     []string{"--permission-mode", "plan"},
			ReadOnly: []string{"--permission-mode", "plan"}, // plan mode denies the edit tools
			Approve:  []string{"--dangerously-skip-permissions"},
			// 2.1.330: "-r, --resume [value]  Resume a conversation by
			// session ID"; an unknown id prints "No conversation found
			// with session ID: ID" and exits 1. The session keeps its id
			// (unless --fork-session), so its hooks name it again.
			Resume:   []string{"--resume", ResumeSession},
			Headless: []string{"claude", "-p"}, HeadlessStdin: true,
			Ready: `(?m)` + promptLine + `|\? for shortcuts`,
			// Spinner line: "✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)".
			Working: `(?mi)\besc to interrupt\b`,
			// Permission menu: "Do you want to proceed?" / "Do you want to make
			// this edit to x?" / "❯ 1. Yes" / "3. No, and tell Claude what to do
			// differently (esc)"; plan exit: "Would you like to proceed?";
			// AskUserQuestion: "Enter to select · ↑/↓ to navigate".
			// First run (2.1.330): trust dialog "Quick safety check: Is this
			// a project you created or one you trust?" / "❯ No, exit" /
			// "Enter to confirm · Esc to cancel"; "Detected a custom API
			// key"; the footer's "Not logged in · run /login" until /login.
			Waiting: `(?m)Do you want to (?:proceed|make this edit|create|overwrite|allow|run|use this API key)\b[^\n]*\?|Would you like to proceed\?|No, and tell Claude what to do differently|^[ \t]*[❯>][ \t]*\d+\.[ \t]+Yes\b|Enter to select|Quick safety check|Yes, I trust this folder|Not logged in · (?:Please )?run /login`,
			Idle:    `(?m)` + promptLine + `|\? for shortcuts`,
			// Footer under the input box: "? for shortcuts", "⏵⏵ accept edits
			// on (shift+tab to cycle)", "⏸ plan mode on", the auto-compact
			// counter.
			// Since 2.1 the footer also carries "esc to interrupt" while a
			// turn runs and "Not logged in · run /login": those rows are
			// read (no ⏵⏵ here).
			StatusBar: `(?m)^[ \t]*(?:\? for shortcuts|⏸ plan mode|Context left until auto-compact|Auto-update failed)`,
			// 2.1.330 after a failed prompt: "❯ Once fixed, resend your
			// message" (dim); a fresh box may suggest `Try "…"`.
			Placeholder: `^(?:Once fixed, resend your message|Try "[^"\n]*")$`,
			// After a turn 2.1.330 may suggest the next prompt in the empty
			// box (an account-side flag turns it on), as text no pattern
			// can tell from a draft: every owt send would be refused. Its
			// variable comes before the flag and the settings.
			Env: []string{"CLAUDE_CODE_ENABLE_PROMPT_SUGGESTION=false"},
			// Claude Code setup docs.
			InstallHint: "npm install -g @anthropic-ai/claude-code",
			Hooks:       "claude",
			MCP:         MCPClaude,
		},
		{
			// OpenAI Codex CLI docs (getting started, sandbox & approvals):
			// `codex "prompt"`; --sandbox read-only;
			// --dangerously-bypass-approvals-and-sandbox (alias --yolo);
			// `codex exec "prompt"`.
			Name:     "codex",
			Command:  []string{"codex"},
			Prompt:   PromptArg,
			Plan:     []string{"--sandbox", "read-only"},
			ReadOnly: []string{"--sandbox", "read-only"},
			Approve:  []string{"--dangerously-bypass-approvals-and-sandbox"},
			// 0.169.0 `codex resume --help`: "codex resume [OPTIONS]
			// [SESSION_ID] [PROMPT]", taking the same options as codex; an
			// unknown id: "No saved session found with ID …".
			Resume:   []string{"resume", ResumeSession},
			Headless: []string{"codex", "exec"}, HeadlessStdin: true,
			// Composer "› Ask Codex to do anything", footer "? for shortcuts
			// 100% context left" (codex-rs tui snapshots).
			Ready: `(?m)` + promptLine + `|Ask Codex to do anything|\? for shortcuts|⏎ send`,
			// Status row "• Working (12s • esc to interrupt)".
			// Also "• Reconnecting... 4/5 (2s • esc to interrupt)" and
			// "◦ Reconnecting to server… (1s)": a bullet row with a timer.
			Working: `(?mi)\besc to interrupt\b|^[ \t]*[•◦]?[ \t]*Working[ \t]*\(|^[ \t]*[•◦][ \t]+\S[^\n]*\(\d+s\b`,
			// codex-rs/tui approval overlay texts (as quoted by pane-patrol).
			Waiting: `(?m)Would you like to (?:run the following command|make the following edits)\?|Do you want to approve access to|needs your approval|Allow command\?|Yes, provide the requested info|Press enter to confirm or esc to cancel|enter to submit answer`,
			Idle:    `(?m)` + promptLine + `|Ask Codex to do anything|\? for shortcuts|⏎ send`,
			// Footer: "⏎ send   ⌃J newline   ⌃T transcript   ⌃C quit",
			// "? for shortcuts   100% context left".
			StatusBar: `(?m)⏎ send|⌃J newline|\d+% context left|\? for shortcuts`,
			// 0.169.0: "Ask Codex to do anything", "Ask a follow-up
			// question"; earlier builds rotated example prompts.
			Placeholder: `^(?:Ask Codex to do anything|Ask a follow-up question|Explain this codebase|Summarize recent commits|Implement \{feature\}|Find and fix a bug in @filename|Write tests for @filename|Improve documentation in @filename)$`,
			InstallHint: "npm install -g @openai/codex",
			Hooks:       "codex",
			MCP:         MCPCodex,
		},
		{
			// Gemini CLI cheatsheet / CLI reference: `gemini -i "prompt"`
			// (--prompt-interactive) runs the prompt and stays interactive;
			// --approval-mode plan|yolo (--yolo is deprecated and an error
			// together with --approval-mode); `gemini -p` is headless.
			Name:       "gemini",
			Command:    []string{"gemini"},
			Prompt:     PromptArg,
			PromptFlag: "-i",
			Plan:       []string{"--approval-mode", "plan"},
			ReadOnly:   []string{"--approval-mode", "plan"}, // 0.61 --help: "plan (read-only mode)"
			Approve:    []string{"--approval-mode", "yolo"},
			// 0.61.0 --resume: "latest", an index, or a session's UUID
			// (findSession: session.id === identifier); else "Invalid
			// session identifier".
			Resume:   []string{"--resume", ResumeSession},
			Headless: []string{"gemini", "-p"}, HeadlessStdin: true,
			// Input placeholder "> Type your message or @path/to/file".
			Ready: `(?m)Type your message or @path/to/file|^[ \t]*[│|][ \t]*>[ \t]`,
			// Loading line "⠏ Thinking… (esc to cancel, 5s)". Dialogs say
			// "Esc to cancel" too, without the timer: not a spinner.
			Working: `(?mi)\(esc to cancel, \d`,
			// Tool confirmation dialogs: "Apply this change?", "Allow execution
			// of: 'cmd'?", "Do you want to proceed?", "● 1. Yes, allow once".
			Waiting: `(?m)Apply this change\?|Allow execution|Do you want to proceed\?|Yes, allow (?:once|always)|Waiting for user confirmation`,
			Idle:    `(?m)Type your message or @path/to/file|^[ \t]*[│|][ \t]*>[ \t]`,
			// Footer: "~/src/app (main*)   no sandbox (see /docs)
			// gemini-2.5-pro (98% context left)".
			StatusBar:   `(?m)\(\d+% context left\)|no sandbox \(see /docs\)|sandbox-exec|macOS Seatbelt`,
			Placeholder: `^Type your message or @path/to/file$`,
			InstallHint: "npm install -g @google/gemini-cli",
			Hooks:       "gemini",
			MCP:         MCPGemini,
		},
		{
			// OpenCode CLI docs (sst/opencode, now anomalyco/opencode):
			// `opencode --prompt "…"` starts the TUI with a prompt; --agent
			// plan selects the read-only plan agent; --auto auto-approves
			// permissions not explicitly denied; `opencode run "…"`.
			Name:       "opencode",
			Command:    []string{"opencode"},
			Prompt:     PromptArg,
			PromptFlag: "--prompt",
			Plan:       []string{"--agent", "plan"},
			// No ReadOnly: OpenCode's plan agent denies the edit tool but not
			// bash, so a "read-only" role could still write through a shell.
			Approve: []string{"--auto"},
			// 1.18.33: --session/-s "session id to continue".
			Resume:   []string{"--session", ResumeSession},
			Headless: []string{"opencode", "run"},
			// At 80 columns the footer wraps: "tab      ctrl+p" over
			// "agents   commands".
			Ready: `(?mi)` + promptLine + `|ctrl\+p(?: commands)?[ \t]*$|enter send|Ask anything`,
			// Status bar "esc interrupt" / "esc again to interrupt"; at 80
			// columns the hint is pushed off and only the busy bar
			// ("⬝⬝■■■■■■") or the retry note starts the row.
			Working: `(?mi)\besc (?:again )?(?:to )?interrupt\b|press esc to stop|^[ \t]*[⬝■]|\[retrying in \d`,
			// permission.tsx: "△ Permission required", "Allow once",
			// "Allow always", "Reject"; question dialog "esc dismiss".
			Waiting:     `(?m)Permission required|Reject permission|Allow (?:once|always)|⇆ select|esc dismiss`,
			Idle:        `(?mi)` + promptLine + `|ctrl\+p(?: commands)?[ \t]*$|ctrl\+p commands|enter send|Ask anything`,
			InstallHint: "npm install -g opencode-ai",
			MCP:         MCPOpenCode,
		},
		{
			// Factory Droid CLI reference: `droid "query"` starts the REPL with
			// a first prompt; --skip-permissions-unsafe skips all permission
			// checks; `droid exec "query"` is headless (read-only unless
			// --auto). Spec mode is toggled in the TUI (shift+tab); no start-up
			// flag is documented for the interactive REPL, so no Plan.
			Name:     "droid",
			Command:  []string{"droid"},
			Prompt:   PromptArg,
			Approve:  []string{"--skip-permissions-unsafe"},
			Headless: []string{"droid", "exec"},
			// droid-cli skill (Factory plugins): idle prompt ">", busy
			// "Thinking..." with a stop hint, dialogs "Use up/down to navigate".
			// Footer "? for help · auto: off"; tool confirmation "Allow this
			// action?" with "Yes, allow" / "No, cancel (esc)".
			Ready:       `(?m)` + promptLine + `|\? for help`,
			Working:     `(?mi)\besc to (?:stop|interrupt|cancel)\b|Thinking\.\.\.|Thinking…`,
			Waiting:     `(?m)Use up/down to navigate|Do you want to proceed\?|Allow this action\?|(?:Allow|Proceed) (?:once|always)|Waiting for (?:user )?(?:confirmation|approval)`,
			Idle:        `(?m)` + promptLine + `|\? for help`,
			InstallHint: "curl -fsSL https://app.factory.ai/cli | sh",
			Hooks:       "droid",
		},
		{
			// Amp Owner's Manual: `amp` is interactive and takes no initial
			// prompt (`amp -x "…"` is execute mode: one turn, then exit), so the
			// task is pasted; --dangerously-allow-all skips approvals.
			Name:     "amp",
			Command:  []string{"amp"},
			Prompt:   PromptPaste,
			Approve:  []string{"--dangerously-allow-all"},
			Headless: []string{"amp", "-x"},
			// Input box "╭─37% of 168k · $1.24────smart─╮" (houston notes).
			// Footer hint "ctrl+o commands"; command approval "Allow this
			// command?" with "Allow" / "Allow all for this session" / "Deny".
			Ready:       `(?m)╭─.*─[ \t]*(?:smart|rush|deep|free|large)[ \t]*─*╮|\d+% of \d+(?:\.\d+)?[kM]\b|ctrl\+o commands`,
			Working:     `(?mi)\besc to (?:cancel|interrupt|stop)\b|Running inference|Running tools|Thinking\.\.\.|Thinking…`,
			Waiting:     `(?mi)waiting for approval|\bApprove\b.*\bDeny\b|Allow (?:once|always|all)|Allow this command\?|Do you want to (?:proceed|run|allow)\b`,
			Idle:        `(?m)╭─.*─[ \t]*(?:smart|rush|deep|free|large)[ \t]*─*╮|\d+% of \d+(?:\.\d+)?[kM]\b|ctrl\+o commands`,
			InstallHint: "curl -fsSL https://ampcode.com/install.sh | bash",
		},
		{
			// pi coding agent (earendil-works/pi, formerly badlogic/pi-mono)
			// docs/cli.md: `pi [messages...]` gives an initial prompt; `pi -p`
			// runs once and exits. Pi has no permission prompts and no plan
			// mode.
			Name:     "pi",
			Command:  []string{"pi"},
			Prompt:   PromptArg,
			Headless: []string{"pi", "-p"},
			// Footer stats "↑1.2k ↓300 $0.012 3.4%/200k (auto)"; loader
			// "Working... (esc to interrupt)" (interactive-mode.ts, footer.ts).
			// Some builds ask before a tool call ("Allow tool call?") and show
			// "/help for commands" in the footer.
			Ready:       `(?m)\d+\.\d%/\d+(?:\.\d+)?[kM]?|/help for commands`,
			Working:     `(?mi)Working\.\.\.|\besc to interrupt\b`,
			Waiting:     `(?m)Allow tool call\?`,
			Idle:        `(?m)\d+\.\d%/\d+(?:\.\d+)?[kM]?|/help for commands`,
			InstallHint: "npm install -g @earendil-works/pi-coding-agent",
		},
		{
			// Cursor CLI docs: `cursor-agent "prompt"` (also installed as
			// `agent`); --mode=plan (or --plan); -f/--force allows commands
			// unless denied; `-p` print mode.
			Name:     "cursor-agent",
			Command:  []string{"cursor-agent"},
			Prompt:   PromptArg,
			Plan:     []string{"--mode=plan"},
			Approve:  []string{"--force"},
			Headless: []string{"cursor-agent", "-p"},
			// Placeholders "→ Plan, search, build anything" and "Add a
			// follow-up"; busy "ctrl+c to stop"; approvals "Run … (y)",
			// "Skip (esc or n)" (seahelm, ccmanager, cli-agent-orchestrator).
			Ready:       `(?m)Plan, search, build anything|Add a follow-up|/ commands · @ files`,
			Working:     `(?mi)ctrl\+c to stop|\besc to (?:interrupt|cancel|stop)\b`,
			Waiting:     `(?m)Skip \(esc or n\)|(?:Run|Allow)\b[^\n]*\(y\)|Run this command\?|Waiting for approval`,
			Idle:        `(?m)Plan, search, build anything|Add a follow-up|/ commands · @ files`,
			Placeholder: `^(?:→ )?(?:Plan, search, build anything|Add a follow-up)$`,
			InstallHint: "curl https://cursor.com/install -fsS | bash",
		},
		{
			// Aider options reference and chat-modes page: positional args are
			// files and --message is one-shot, so the task is pasted;
			// --chat-mode ask never edits; --yes-always; prompts "> ",
			// "ask> ", "architect> "; confirmations "(Y)es/(N)o".
			Name:        "aider",
			Command:     []string{"aider"},
			Prompt:      PromptPaste,
			Plan:        []string{"--chat-mode", "ask"},
			ReadOnly:    []string{"--chat-mode", "ask"}, // ask mode never edits
			Approve:     []string{"--yes-always"},
			Headless:    []string{"aider", "--message"},
			Ready:       `(?m)^(?:ask|architect|code|help|context|multi)?> ?$`,
			Working:     `(?m)Waiting for [\w./:-]+|Updating repo map|Scanning repo`,
			Waiting:     `(?m)\(Y\)es/\(N\)o`,
			Idle:        `(?m)^(?:ask|architect|code|help|context|multi)?> ?$`,
			InstallHint: "python -m pip install aider-install && aider-install",
		},
	}
}

// builtinOrder is the order of Builtins, for Order and "auto".
func builtinOrder() []string {
	bs := Builtins()
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.Name
	}
	return names
}

// Profiles returns the built-in profiles with the config's [tools.NAME]
// tables merged over them field by field (an empty field keeps the built-in
// value, as in config.MergeTool). A name owt does not know adds a tool, which
// must have a command. An empty plan list (plan = []) means "no plan mode".
// Every pattern must compile and every prompt mode must be valid; each
// problem names its key, like "tools.foo.ready: invalid regex: …".
func Profiles(cfg config.Config) (map[string]Profile, error) {
	out := make(map[string]Profile)
	for _, b := range Builtins() {
		out[b.Name] = b
	}
	names := make([]string, 0, len(cfg.Tools))
	for n := range cfg.Tools {
		names = append(names, n)
	}
	sort.Strings(names)

	var problems config.Problems
	for _, name := range names {
		key := "tools." + name
		if name == "" || name == Auto || strings.ContainsAny(name, " \t\r\n") {
			problems = append(problems, config.Problem{Key: key, Msg: fmt.Sprintf("%q cannot be a tool name", name)})
			continue
		}
		base, known := out[name]
		merged := config.MergeTool(toTool(base), cfg.Tools[name])
		p := fromTool(name, merged, base.Hooks, base.MCP)
		p.ReadOnly = clone(base.ReadOnly)
		p.Resume = clone(base.Resume)
		p.Placeholder = base.Placeholder
		// A built-in tool's one-shot reads stdin only with its own argv.
		p.HeadlessStdin = base.HeadlessStdin && slices.Equal(p.Headless, base.Headless)
		if !known && p.Prompt == "" {
			p.Prompt = PromptArg
		}
		problems = append(problems, validate(key, p)...)
		out[name] = p
	}
	if len(problems) > 0 {
		return nil, problems // File unset: config.Locate names the file that set each key
	}
	return out, nil
}

func toTool(p Profile) config.Tool {
	return config.Tool{
		Command:     p.Command,
		Prompt:      string(p.Prompt),
		PromptFlag:  p.PromptFlag,
		Plan:        p.Plan,
		Approve:     p.Approve,
		Headless:    p.Headless,
		Ready:       p.Ready,
		Working:     p.Working,
		Waiting:     p.Waiting,
		Idle:        p.Idle,
		StatusBar:   p.StatusBar,
		InstallHint: p.InstallHint,
		MCP:         mcpSetting(p.MCPOff),
	}
}

// mcpSetting is [tools.X] mcp for a profile: false when it is off, else
// unset (follow [mcp]).
func mcpSetting(off bool) *bool {
	if !off {
		return nil
	}
	no := false
	return &no
}

func fromTool(name string, t config.Tool, hooks, mcp string) Profile {
	p := Profile{
		Name:        name,
		Command:     clone(t.Command),
		Prompt:      PromptMode(t.Prompt),
		PromptFlag:  t.PromptFlag,
		Plan:        clone(t.Plan),
		Approve:     clone(t.Approve),
		Headless:    clone(t.Headless),
		Ready:       t.Ready,
		Working:     t.Working,
		Waiting:     t.Waiting,
		Idle:        t.Idle,
		StatusBar:   t.StatusBar,
		InstallHint: t.InstallHint,
		Hooks:       hooks,
		MCP:         mcp,
		MCPOff:      t.MCP != nil && !*t.MCP,
	}
	if len(p.Plan) == 0 {
		p.Plan = nil
	}
	return p
}

// validate returns every problem with p, each naming its key under prefix.
func validate(prefix string, p Profile) config.Problems {
	var ps config.Problems
	add := func(key, format string, args ...any) {
		ps = append(ps, config.Problem{Key: prefix + "." + key, Msg: fmt.Sprintf(format, args...)})
	}
	if len(p.Command) == 0 || strings.TrimSpace(p.Command[0]) == "" {
		add("command", "required (the program to run, e.g. command = [%q])", p.Name)
	}
	if !p.Prompt.Valid() {
		add("prompt", "must be \"arg\", \"paste\" or \"none\", not %q", p.Prompt)
	}
	for _, f := range []struct{ key, pattern string }{
		{"ready", p.Ready}, {"working", p.Working}, {"waiting", p.Waiting}, {"idle", p.Idle},
		{"status_bar", p.StatusBar},
	} {
		if _, err := CompilePattern(f.pattern); err != nil {
			add(f.key, "invalid regex: %v", err)
		}
	}
	if p.Prompt == PromptPaste && p.Ready == "" {
		add("ready", "required when prompt is \"paste\" (owt pastes the task once it matches)")
	}
	return ps
}

// CompilePattern compiles a screen pattern in multiline mode. An empty
// pattern returns nil: it never matches.
func CompilePattern(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	if !hasMultilineFlag(pattern) {
		pattern = "(?m)" + pattern
	}
	return regexp.Compile(pattern)
}

// hasMultilineFlag reports whether pattern starts with a flag group such as
// (?m) or (?mi).
func hasMultilineFlag(pattern string) bool {
	if !strings.HasPrefix(pattern, "(?") {
		return false
	}
	end := strings.IndexByte(pattern, ')')
	if end < 0 {
		return false
	}
	flags := pattern[2:end]
	if i := strings.IndexByte(flags, '-'); i >= 0 {
		flags = flags[:i]
	}
	return strings.Trim(flags, "imsU") == "" && strings.ContainsRune(flags, 'm')
}

// Order returns the profile names: built-ins in their fixed order, then the
// others sorted.
func Order(profiles map[string]Profile) []string {
	builtin := builtinOrder()
	isBuiltin := make(map[string]bool, len(builtin))
	names := make([]string, 0, len(profiles))
	for _, n := range builtin {
		isBuiltin[n] = true
		if _, ok := profiles[n]; ok {
			names = append(names, n)
		}
	}
	var custom []string
	for n := range profiles {
		if !isBuiltin[n] {
			custom = append(custom, n)
		}
	}
	sort.Strings(custom)
	return append(names, custom...)
}

// LookPath finds the tool's program on PATH.
func (p Profile) LookPath() (string, bool) {
	if len(p.Command) == 0 || p.Command[0] == "" {
		return "", false
	}
	path, err := exec.LookPath(p.Command[0])
	if err != nil {
		return "", false
	}
	return path, true
}

// Argv returns the interactive command line: Command, then Plan when plan is
// set, then Approve when approve is set, then the task when the tool takes it
// as an argument. The task is one argv element, verbatim: it never passes
// through a shell.
//
// When Plan and Approve set the same flag (gemini's --approval-mode), plan
// wins and Approve is left out: the tool would refuse both.
func (p Profile) Argv(task string, plan, approve bool) ([]string, error) {
	if len(p.Command) == 0 {
		return nil, fmt.Errorf("tool %q has no command", p.Name)
	}
	argv := clone(p.Command)
	if plan {
		if p.Plan == nil {
			return nil, &toolError{msg: fmt.Sprintf("tool %q has no plan mode", p.Name), kind: ErrNoPlanMode}
		}
		argv = append(argv, p.Plan...)
	}
	if approve && !(plan && sameFlag(p.Plan, p.Approve)) {
		argv = append(argv, p.Approve...)
	}
	if p.Prompt == PromptArg && task != "" {
		if p.PromptFlag != "" {
			argv = append(argv, p.PromptFlag)
		}
		argv = append(argv, task)
	}
	return argv, nil
}

// ResumeSession stands for the session id in Profile.Resume.
const ResumeSession = "{session}"

// CanResume reports whether the tool can be started on a session by id.
func (p Profile) CanResume() bool { return len(p.Resume) > 0 }

// ResumeArgv is Argv without a task, starting the tool on its session
// id: Resume right after Command, the id one argument of its own.
func (p Profile) ResumeArgv(session string, plan, approve bool) ([]string, error) {
	if !p.CanResume() {
		return nil, fmt.Errorf("tool %q cannot resume a session by id", p.Name)
	}
	if !state.ValidSessionID(session) {
		return nil, fmt.Errorf("resume %s: %q is not a session id", p.Name, session)
	}
	argv, err := p.Argv("", plan, approve)
	if err != nil {
		return nil, err
	}
	extra := make([]string, len(p.Resume))
	for i, a := range p.Resume {
		extra[i] = strings.ReplaceAll(a, ResumeSession, session)
	}
	out := append(clone(argv[:len(p.Command)]), extra...)
	return append(out, argv[len(p.Command):]...), nil
}

// sameFlag reports whether a and b start with the same flag name (the part
// before any "=").
func sameFlag(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	name := func(s string) string {
		if i := strings.IndexByte(s, '='); i >= 0 {
			return s[:i]
		}
		return s
	}
	return strings.HasPrefix(a[0], "-") && name(a[0]) == name(b[0])
}

// HeadlessArgv returns the command line of a one-shot run of task: Headless
// with the task appended as one element.
func (p Profile) HeadlessArgv(task string) ([]string, error) {
	if len(p.Headless) == 0 {
		return nil, &toolError{msg: fmt.Sprintf("tool %q has no headless mode", p.Name), kind: ErrNoHeadless}
	}
	if task == "" {
		return nil, fmt.Errorf("a headless run of %q needs a task", p.Name)
	}
	return append(clone(p.Headless), task), nil
}

// NeedsPaste reports whether the task has to be pasted after start-up.
func (p Profile) NeedsPaste(task string) bool {
	return p.Prompt == PromptPaste && task != ""
}

// Resolve picks the profile to run. "auto" or "" means the first installed
// tool in Order. An unknown name wraps ErrUnknownTool; a tool whose program
// is not on PATH wraps ErrNotInstalled and says how to install it.
func Resolve(profiles map[string]Profile, name string) (Profile, error) {
	order := Order(profiles)
	if name == "" || name == Auto {
		for _, n := range order {
			if _, ok := profiles[n].LookPath(); ok {
				return profiles[n], nil
			}
		}
		msg := fmt.Sprintf("no agent tool is installed (looked for: %s)", strings.Join(order, ", "))
		if len(order) > 0 && profiles[order[0]].InstallHint != "" {
			msg += fmt.Sprintf("; install one, e.g. %s: %s", order[0], profiles[order[0]].InstallHint)
		}
		return Profile{}, &toolError{msg: msg, kind: ErrNotInstalled}
	}
	p, ok := profiles[name]
	if !ok {
		return Profile{}, &toolError{
			msg:  fmt.Sprintf("unknown tool %q (known: %s)", name, strings.Join(order, ", ")),
			kind: ErrUnknownTool,
		}
	}
	if _, ok := p.LookPath(); !ok {
		hint := p.InstallHint
		if hint == "" {
			prog := ""
			if len(p.Command) > 0 {
				prog = p.Command[0]
			}
			hint = fmt.Sprintf("%q was not found on PATH", prog)
		}
		return Profile{}, &toolError{msg: fmt.Sprintf("tool %q is not installed: %s", name, hint), kind: ErrNotInstalled}
	}
	return p, nil
}

// toolError is an error with its own message that still matches a sentinel
// with errors.Is.
type toolError struct {
	msg  string
	kind error
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.kind }

func clone(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}
