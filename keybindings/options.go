package keybindings

// Option is one @owt-* tmux option: its name, its value when unset, and
// what it does. docs/reference/tmux-options.md and owt.1 are made from
// Options and Published (internal/docgen), so the words live here, beside
// the table they describe.
type Option struct {
	Name    string
	Default string
	Doc     string
}

// keyDocs says what each key of owt.conf's table opens, by its action.
// An action without words fails TestEveryKeyHasWords.
var keyDocs = map[string]string{
	"switch":  "Alt+s: a fuzzy picker of every agent of every repository, with a preview of its pane and diff; Enter jumps there.",
	"create":  "Alt+c: a form for a task, tool, template, base branch and plan mode; then a worktree, a session and an agent.",
	"merge":   "Alt+m: the check report of the current worktree (a picker outside one), then merge or ship it.",
	"delete":  "Alt+d: delete a worktree; shows what would be lost and asks twice before losing work.",
	"control": "Alt+o: every agent and run task by what it needs (NEEDS YOU, READY TO SHIP, IN FLIGHT, QUEUED, RECENT), live, a verb on every row; `d` reviews a worktree's diff.",
	"restore": "Alt+r: brings back every agent whose session a reboot or a dead tmux server took, each on its own conversation (`owt restore --all` in a popup, a line per agent).",
}

// Options are the @owt-* options you may set (set -g … before TPM's run
// line, or run owt tmux init again after): one per key of the table, in
// its order, then the rest.
func Options() []Option {
	var out []Option
	for _, k := range Table() {
		out = append(out, Option{Name: k.Option, Default: k.Default,
			Doc: keyDocs[k.Action] + " Any tmux key name; `none` leaves it unbound."})
	}
	return append(out,
		Option{OptTable, DefaultTable, "`root`: the keys work without the prefix; `prefix`: press the prefix first. Root-table Alt keys take Alt+c, Alt+d … from readline and every program in a pane; `prefix` gives them back."},
		Option{OptWidth, DefaultSize, "The popups' width: columns, or a percentage of the terminal. A client where it comes out under 60 columns (a phone: 80% of 50 is 40) or wider than the client gets a popup of the whole client; tmux decides per key press, from that client's size."},
		Option{OptHeight, DefaultSize, "The popups' height: lines, or a percentage of the terminal. Under 20 lines, or higher than the client: the whole client, as for the width."},
		Option{"@owt-status-style", "auto", "The form of the status bar's segment: `full` (who needs you by name, then counts: `▲ login docs ● 2`), `compact` (counts only: `▲2 ●2`), or `auto`: compact on a client narrower than 80 columns, such as a phone's terminal. tmux chooses per client at each redraw; no process is run."},
		Option{"@owt-create-switch", "on", "`on`: Alt+c moves you to the new agent's session; `off`: you stay where you are."},
		Option{"@owt-diff-pager", "", "A pager that shows a file's diff in the control popup's review instead of the built-in view (`delta`, `less -R`); unset: built in."},
		Option{"@owt-theme", "auto", "The popups' colours: `auto` (follow the terminal's background), `dark`, `light`, `dark-ansi` or `light-ansi`; `NO_COLOR` turns colour off."},
		Option{"@owt-build", "on", "`off`: the plugin never builds its programs with Go (it downloads a release, or uses owt on PATH)."},
		Option{"@owt-release-url", "", "Where the plugin downloads `owt_VERSION_OS_ARCH.tar.gz` and `checksums.txt` from when it does not build; unset: the project's releases (the plugin's tag, else the latest); `none`: never download."},
		Option{"@owt-link-bin", "off", "`on`: link the plugin's programs into `~/.local/bin`, so `owt` is on PATH in a shell; a folder: link them there."},
	)
}

// Published are the options owt sets for you to read: in your status
// bar, your own window-status-format, or when something went wrong.
func Published() []Option {
	return []Option{
		{"#{owt_status}", "", "Put it in `status-left` or `status-right`: `owt tmux init` replaces it with a format that reads `#{@owt-status-line}` (or `#{@owt-status-compact}`, see `@owt-status-style`), so a redraw reads an option and starts no process."},
		{"@owt-status-line", "", "Global: the status bar's summary (`▲` needs you, `●` working, `○` idle, `✕` exited, `⟲ N` agents to restore), rewritten on every status change."},
		{"@owt-status-compact", "", "Global: the compact summary (`▲2 ●3 ○1 ✕1`, counts only), what the segment shows on a narrow client or with `@owt-status-style compact`; rewritten with `@owt-status-line`."},
		{"@owt-status", "", "On each agent's session: its status (`starting`, `working`, `waiting`, `limited`, `idle`, `exited`), for your own `window-status-format`."},
		{"@owt-usage", "", "The usage windows where the tool reports them (Claude Code, Codex: see the usage guide), for your status bar (`#{@owt-usage}`): on each agent's session its own (`5h 82% wk 41%`), globally the highest share of each window among this server's agents; empty when none. Set by the monitor when it changes."},
		{"@owt-name", "", "On each agent's session: the agent's name."},
		{"@owt-repo", "", "On each agent's session: the repository's root."},
		{"@owt-bootstrap-error", "", "Global: why the plugin could not build, download or start owt (also in the plugin's `bin/bootstrap.log`); unset once it works."},
	}
}
