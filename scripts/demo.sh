#!/usr/bin/env bash
# make demo: a throwaway tmux server with owt's binary, a sample repo and the
# bundled demo agent, so the whole flow works with no AI tool installed.
# Nothing outside a temp dir is touched; the server is killed on exit.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
owt="$here/bin/owt"
agent="$here/bin/owt-demo-agent"
[ -x "$owt" ] && [ -x "$agent" ] || { echo "run 'make demo' (it builds bin/owt and bin/owt-demo-agent)" >&2; exit 1; }

root="$(mktemp -d "${TMPDIR:-/tmp}/owt-demo.XXXXXX")"
export HOME="$root/home" XDG_CONFIG_HOME="$root/config" XDG_STATE_HOME="$root/state" \
	XDG_CACHE_HOME="$root/cache" TMUX_TMPDIR="$root/tmux"
mkdir -p "$HOME" "$TMUX_TMPDIR" "$XDG_CONFIG_HOME/owt" "$root/bin"
unset TMUX TMUX_PANE
# The server goes first, then everything its panes ran (agents, hooks
# writing state) gets a moment to exit before the temp dir is removed.
cleanup() {
	local pids
	pids="$(tmux list-panes -a -F '#{pane_pid}' 2>/dev/null || true)"
	tmux kill-server 2>/dev/null || true
	for _ in $(seq 50); do
		local alive=0
		for p in $pids; do
			pgrep -s "$p" >/dev/null 2>&1 && alive=1
		done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	rm -rf "$root"
}
trap cleanup EXIT

# The demo agent draws a Claude-like screen; it is installed as "claude"
# so owt's built-in profile (and its hooks) are exercised for real.
ln -s "$agent" "$root/bin/claude"
ln -s "$owt" "$root/bin/owt"
export PATH="$root/bin:$PATH"
export OWT_FAKE_WORK=3s

repo="$root/shop"
mkdir -p "$repo"
git -C "$repo" init -q -b main
printf '# shop\nA sample repo for the owt demo.\n' > "$repo/README.md"
printf '.env\n' > "$repo/.gitignore"
printf 'API_KEY=demo\n' > "$repo/.env"
git -C "$repo" add README.md .gitignore
git -C "$repo" -c user.name=demo -c user.email=demo@example.invalid commit -q -m "initial commit"

# Login shells reset PATH from /etc/profile: put the demo's bin/ back.
printf 'export PATH="%s/bin:$PATH"\n' "$root" > "$HOME/.bash_profile"
cp "$HOME/.bash_profile" "$HOME/.bashrc"
export SHELL=/bin/bash

cat > "$HOME/.tmux.conf" <<CONF
set -g default-shell /bin/bash
set -g base-index 1
set -g pane-base-index 1
set -g status-right '#{owt_status} | %H:%M'
# The plugin, loaded the way a user without TPM would: its keys
# (Alt+s, Alt+c, Alt+m, Alt+d) and the #{owt_status} segment.
run-shell '$here/owt.tmux'
CONF

cd "$repo"
tmux new-session -d -s demo -c "$repo"
owt new "Add a checkout page with a cart summary" >/dev/null
owt new "Fix the login redirect loop" >/dev/null
tmux send-keys -t demo -l "owt list   # try: owt send <name> '!ask', owt switch <name>, owt delete <name> --force"
tmux send-keys -t demo Enter

cat <<MSG
owt demo: a private tmux server with two demo agents in $repo.
Keys (the plugin is loaded): Alt+s pick an agent and jump there, Alt+c start
a new one, Alt+m see what merging this worktree would do, Alt+d delete one.
The status bar shows them: ▲ needs you, ● working, ○ idle, ✕ exited.
Commands to try inside: owt list, owt send NAME "hello", owt switch NAME,
owt new "Refactor the cart", owt delete NAME --force.
Detach (prefix d) or exit to end the demo; everything is removed afterwards.
MSG
tmux attach-session -t demo
