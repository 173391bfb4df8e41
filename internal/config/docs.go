package config

// keyDocs says what each table and key of the config files does, by its
// name in Schema (NAME stands for a name the user chooses). Config's
// fields have their Go comments; these are the words a user reads in
// docs/reference/config.md and owt.1. A key without one fails
// TestEveryKeyHasADescription, and so does a description of no key.
var keyDocs = map[string]string{
	"worktree":            "Where worktrees go and what they get from the main checkout.",
	"worktree.dir":        "The path of a new worktree: `{repo}` and `{name}` are replaced (`{name}` must be there), a relative path is taken from the repository's root, `~` is your home.",
	"worktree.copy":       "Glob patterns of untracked files (those git ignores) copied into a new worktree; a pattern without `/` matches a file name at any depth.",
	"worktree.link":       "Paths, relative to the repository's root and inside it (no `..`, not absolute), symlinked into a new worktree (e.g. `node_modules/.cache`).",
	"worktree.port_base":  "The first port handed out: each worktree gets a block of `port_block` ports from here, its first in `OWT_PORT` (1024 to 65000).",
	"worktree.port_block": "How many ports each worktree's block holds (1 to 1000).",

	"setup":          "Dependency installation in a new worktree, visible in its session.",
	"setup.install":  "Run the install of the package managers the worktree's root files name (npm, pnpm, yarn or bun; uv, poetry, pipenv or pip; cargo; go; composer).",
	"setup.commands": "Commands run after the install, each through `sh -c` in the worktree: your own shell code, never combined with other input.",

	"agent":               "The agent a new worktree gets.",
	"agent.tool":          "The tool: a name (`owt tools` lists them) or `auto`, the first installed of claude, codex, gemini, opencode, droid, amp, pi, cursor-agent, aider.",
	"agent.auto_approve":  "Add the tool's skip-permission flags (its `approve` arguments).",
	"agent.ready_timeout": "How long a tool that takes its task pasted (aider, amp) may take to show its prompt before the task is pasted all the same.",
	"agent.send_timeout":  "`owt send`: how long each wait may take (a starting agent to be ready, the typed text to show, Enter to take).",

	"status":             "How owt reads an agent's status.",
	"status.still_after": "How long a working agent's pane must stay unchanged, its input prompt showing, before owt calls it idle (Esc fires no hook).",

	"notify":                  "When and how owt tells you an agent changed status.",
	"notify.on":               "The statuses whose arrival notifies: `waiting`, `limited` (a usage limit), `idle`, `exited`, `needs_you` (a run's task that failed, asks or is blocked), and `usage` (an agent past [usage] warn_at of a usage window). `[]` turns notifications off.",
	"notify.desktop":          "The desktop's notices: `notify-send` on Linux (clicking one switches your tmux client to the agent where it offers actions), `terminal-notifier` or else `osascript` on macOS. The older `desktop = true` is kept and reads as `enabled = true`.",
	"notify.desktop.enabled":  "Show each notice on the desktop.",
	"notify.desktop.on":       "The statuses this channel tells; unset, `[notify] on`.",
	"notify.terminal":         "Notices your own terminal shows (OSC 9 or OSC 777), written to each client attached to the tmux server, so they reach your desktop over ssh too.",
	"notify.terminal.osc":     "`auto` (the sequence the client's terminal is known to show, nothing when it is not known; the notifications guide lists them), `9`, `777`, `99` (kitty's own) or `off`.",
	"notify.terminal.on":      "The statuses this channel tells; unset, `[notify] on`.",
	"notify.webhook":          "A POST of each notice to a URL.",
	"notify.webhook.url":      "The URL (`http://` or `https://`); empty turns the channel off. Its path is a secret of sorts: owt's log never shows it.",
	"notify.webhook.format":   "The body: `json` (owt's own, see the notifications guide), `slack` (`{\"text\": …}`) or `discord` (`{\"content\": …}`).",
	"notify.webhook.on":       "The statuses this channel tells; unset, `[notify] on`.",
	"notify.ntfy":             "Push each notice to a ntfy topic (ntfy.sh or your own server), for your phone. Only your own config file may set it. See the notifications guide.",
	"notify.ntfy.url":         "The server's root URL; empty is `https://ntfy.sh`.",
	"notify.ntfy.topic":       "The topic notices go to (letters, digits, `-`, `_`); empty turns the channel off. On a public server the topic is the password: pick one nobody guesses.",
	"notify.ntfy.token_env":   "The name of the environment variable, in owt's monitor, that holds an access token (`Authorization: Bearer`); empty sends none. The token itself never goes in a config file or owt's log.",
	"notify.ntfy.reply":       "Put a prompt's numbered choices on its notice as buttons; a tap answers that prompt as `owt send --answer` would, once, and only while the prompt is still on screen.",
	"notify.ntfy.reply_topic": "The topic the buttons publish to and owt's monitor follows; empty is the topic with `-reply` added.",
	"notify.ntfy.on":          "The statuses this channel tells; unset, `[notify] on`.",
	"notify.command":          "A program run (argv, no shell) on each notification, with `OWT_NAME`, `OWT_STATUS`, `OWT_EVENT`, `OWT_TEXT`, `OWT_RUN`, `OWT_TASK`, `OWT_REPO` and `OWT_PATH` in its environment.",

	"tmux":      "The tmux sessions owt makes.",
	"tmux.size": "The size a new agent session is made at: `auto` (the client owt runs from, else the largest attached client, else 200x50) or `WIDTHxHEIGHT`. Once a client is attached, tmux's `window-size` decides.",

	"tools.NAME":              "Adds a tool, or overrides fields of a built-in one (`owt tools` lists them); an empty field keeps the built-in value. NAME is letters, digits, `.`, `_` and `-` (not first), at most 63.",
	"tools.NAME.command":      "The tool's argv; never through a shell.",
	"tools.NAME.prompt":       "How the first prompt goes in: `arg` (as an argv element), `paste` (typed once `ready` shows) or `none`.",
	"tools.NAME.prompt_flag":  "A flag put before the prompt argument (e.g. `-i`).",
	"tools.NAME.plan":         "Arguments added with `--plan` (the tool's plan or read-only mode).",
	"tools.NAME.approve":      "Arguments added with `[agent] auto_approve`.",
	"tools.NAME.headless":     "The argv of a one-shot run, the prompt appended (`owt plan`, the AI review).",
	"tools.NAME.ready":        "A regular expression over the screen: the tool shows its input prompt.",
	"tools.NAME.working":      "A regular expression over the screen: the tool is working.",
	"tools.NAME.waiting":      "A regular expression over the screen: the tool waits for you (a permission prompt or a question).",
	"tools.NAME.idle":         "A regular expression over the screen: the tool's turn is over.",
	"tools.NAME.status_bar":   "A regular expression matching the tool's own footer lines (model, context), never read as working or waiting.",
	"tools.NAME.install_hint": "What to run to install the tool, shown when it is missing.",
	"tools.NAME.mcp":          "`false` keeps owt mcp away from this tool; unset follows `[mcp] enabled`.",

	"checks":          "The repository's own checks, run by owt in an agent's worktree when it turns idle on a new tree (the `checks_failed` reaction).",
	"checks.commands": "The check commands, each an argv (no shell), run in order, e.g. `[[\"make\", \"test\"]]`.",
	"checks.timeout":  "How long one check command may run.",

	"pr":               "`owt pr` and the polling of open pull requests.",
	"pr.remote":        "The git remote branches are pushed to; empty: the base branch's remote, else `origin`, else the only remote.",
	"pr.poll_interval": "The time between two polls of one open pull request (one `gh` call each; errors back off from it). At least 1s.",

	"reactions.NAME":              "A reaction source by name: `checks_failed`, `ci_failed`, `changes_requested` or `conflict`.",
	"reactions.NAME.action":       "`send` (the failure goes to the agent), `notify` (to you only) or `off`.",
	"reactions.NAME.max_attempts": "How many messages go to the agent before the reaction needs you.",
	"reactions.NAME.message":      "A Go text/template for the message to the agent, with `{{.Failure}}`, `{{.Name}}`, `{{.Reaction}}`, `{{.PR}}` and `{{.Base}}`; empty: owt's own.",

	"mcp":                "owt mcp, the peers server every agent's tool starts: whether agents get it, spawning, and the loop guard on messages between agents.",
	"mcp.enabled":        "Register owt mcp with every agent's tool (`[tools.NAME] mcp = false` leaves one out).",
	"mcp.max_spawned":    "How many live agents one agent may have spawned.",
	"mcp.spawn_depth":    "How deep spawning goes: 1 lets the agents you started spawn executors, which cannot spawn in turn.",
	"mcp.message_limit":  "Messages from one agent to any one peer per `message_window`; past it a message is refused and the pair needs you.",
	"mcp.message_window": "The window `message_limit` counts in.",

	"memory":                   "The repository's memory (`owt memory`): what a new agent is given, and how often the monitor consolidates.",
	"memory.inject_tokens":     "How many tokens of facts a new agent gets (pinned first, then by its task; about 4 characters a token); 0 gives none.",
	"memory.consolidate_every": "How often the monitor consolidates a repository's memory while its agents are idle; `\"0s\"`: never.",
	"memory.stale_after":       "How long a worktree may sit idle before a consolidation reports it stale.",

	"project":      "The project's own commands, named in every agent's first prompt (the session protocol); an empty list is detected from the worktree's files.",
	"project.test": "The test commands, each a shell line for the agent to run (e.g. `[\"make test\"]`).",
	"project.lint": "The lint commands, each a shell line.",
	"project.dev":  "The commands that start a development server, each a shell line.",

	"templates.NAME":        "A task template of your own (`owt new --template NAME`), or defaults over a built-in one of the same name (`owt templates` lists them).",
	"templates.NAME.prompt": "A Go text/template: the task part of the first prompt (`{{.Task}}`, `{{.Branch}}` …); the session protocol follows it.",
	"templates.NAME.plan":   "The default of `--plan`; unset keeps the built-in's.",
	"templates.NAME.tool":   "The default of `--tool`.",
	"templates.NAME.base":   "The default of `--base`.",
	"templates.NAME.checks": "The commands the verify step names, in place of the project's test and lint commands.",

	"prices.NAME":             "What a model costs, in US dollars per million tokens, by model name as the tools write it (`[prices.\"claude-sonnet-4-5\"]`), for the cost shown beside the tokens. owt has built-in prices for the common models (`owt config show` lists them); a model without one shows tokens only.",
	"prices.NAME.input":       "Input tokens, not cached.",
	"prices.NAME.output":      "Output tokens, reasoning included.",
	"prices.NAME.cache_write": "Tokens written to the prompt cache (Anthropic's 5-minute cache).",
	"prices.NAME.cache_read":  "Tokens read from the prompt cache.",

	"usage":          "How the monitor reads the agents' tokens and cost.",
	"usage.interval": "How often the monitor reads what the agents' session files gained. At least 1s.",
	"usage.warn_at":  "Tell once per reset period, through [notify] (status `usage`), when an agent has used this share of its 5-hour or weekly usage window, in percent; 0 (the default) never. Only tools that report their windows have them: Claude Code (through owt's statusLine) and Codex.",

	"review":         "The AI review gate: a headless run of a tool over a branch's diff before it lands (`owt merge --review`, `owt ship --review`).",
	"review.enabled": "Review before every merge and ship, from every face (commands, popups, runs).",
	"review.tool":    "The tool that reviews; empty: the agent's own tool, else `[agent] tool`. It needs a headless mode.",
	"review.timeout": "How long one review may take, both of its attempts together; the tool is ended at it and the review is unavailable.",

	"run":             "Defaults of every task-graph run (a plan file's own `[run]` wins).",
	"run.on_conflict": "What a landing that conflicts leads to: `needs_you` (nothing changes, you decide) or `resolve` (once, the agent resolves it in its worktree, as `owt resolve`).",

	"log":        "owt.log, which every repository shares: only your own config file may set it.",
	"log.format": "`text` (a line per entry) or `json` (a JSON object per line, with time, level, repo, agent and event). `owt --log-format` overrides it for one run.",

	"hosts.NAME":            "A machine agents may run on, reached with your own ssh (`owt host add`). Only your own config file may set hosts.",
	"hosts.NAME.address":    "`[user@]host[:port]`; host may be an alias of `~/.ssh/config`.",
	"hosts.NAME.labels":     "Words describing the machine (`gpu`, `bigmem`), for placing run tasks (`labels = [\"gpu\"]` in a plan).",
	"hosts.NAME.max_agents": "How many agents owt starts there at most; 0 or unset: no bound.",
	"hosts.NAME.repos":      "A local repository's root → its clone on the host (`\"~/src/app\" = \"/home/me/src/app\"`).",
	"hosts.NAME.search":     "Directories on the host whose checkouts (one level below) are searched for a clone with the repository's origin when `repos` names none; the one found is remembered.",
}
