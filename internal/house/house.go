// Package house is owt's floor plan: which package sits on which floor,
// and so which imports are allowed. Its test reads every package's
// imports and fails on one that points up, or sideways without being
// listed, naming both packages, so the layout cannot decay silently. It
// holds no code owt runs.
//
// A package imports only from floors below its own, plus the few
// same-floor imports the test lists (sideways), each with why. The
// floors, top to bottom:
//
//	entry          cmd/owt, cmd/owt-popup, cmd/owt-mcp:
//	               wiring only
//	command table  internal/cli: Main and the table of every command,
//	               which sits above the command groups it lists
//	faces          the command groups (cli/worktreecmd, landcmd, runcmd,
//	               setupcmd, mcpcmd, hostcmd) and the popups
//	command kit    internal/cli/cmdutil: what every command shares (the
//	               factory, streams, exit codes), below the groups that
//	               use it
//	drivers        the monitor (one per tmux server) and the run engine
//	               it drives (run/engine)
//	verbs          control (ship, merge, delete: the one path from every
//	               face), react (reactions), pane (owt _run, what runs in
//	               an agent's pane), peers (what owt mcp gives an agent),
//	               swarm, resolve, uninstall (everything owt put on the
//	               machine)
//	use cases      one concern each: lifecycle (create, list, delete,
//	               restart, doctor), status (reconcile, wait, done, why,
//	               the bar), hook (one hook event's whole path), send
//	               (typing now, and the outbox's courier later), land
//	               (checks, merge, ship, pull requests, the review gate),
//	               hosts, notes, memory/facts, templates, keybindings
//	core           workspace: a repository as owt manages it
//	models         the run (plan, state, evidence, decisions), the outbox
//	               queue, agent profiles and the screen classifier, what a
//	               hook event says
//	support        what many use cases need, built on the records: the
//	               log (owtlog), usage counts, the memory's door (memory),
//	               the monitor's starter and its bell (daemon), the
//	               notice channels (notify)
//	ground         the only code that runs git, tmux, gh and ssh; the
//	               records (state, with the rule of a status change); the
//	               config and where owt's files go; setup; OpenCode's
//	               database
//	base           untrusted text, starting programs (proc), atomic
//	               files, the popups' palettes: they import
//	               nothing of owt's
package house
