#!/usr/bin/env bash
# make demo: a throwaway tmux server with owt, a sample repo and three
# demo agents that work on their own (one finishes with a commit to merge,
# one asks for permission, one keeps working), so the keys, the control
# popup, the bar and `owt why` all have something to show with no AI tool
# installed. The agents are testdata/fakeagent playing Claude Code, told
# what to do by a playbook (OWT_FAKE_PLAYBOOK), not by their tasks.
#
#   scripts/demo.sh              build the world in a temp dir, attach to it;
#                                leaving ends the server and removes it all
#   scripts/demo.sh --world DIR  build the world in DIR and leave it running,
#                                unattached; it says how to attach and end it
#
# The programs come from bin/ (make demo builds them), or OWT_DEMO_BIN;
# the agent is bin/owt-demo-agent, or OWT_DEMO_AGENT.
set -euo pipefail

usage() { echo "usage: scripts/demo.sh [--world DIR]" >&2; exit 2; }
world=""
case $# in
0) ;;
2) [ "$1" = --world ] && [ -n "$2" ] || usage; world="$2" ;;
*) usage ;;
esac

here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${OWT_DEMO_BIN:-$here/bin}"
agent="${OWT_DEMO_AGENT:-$bin/owt-demo-agent}"
for p in "$bin/owt" "$bin/owt-popup" "$agent"; do
	[ -x "$p" ] || { echo "demo: $p is missing: run 'make demo' (it builds bin/owt, its helpers and bin/owt-demo-agent)" >&2; exit 1; }
done

outer="${TMUX:-}" # the user's own tmux, if the demo runs inside one
if [ -n "$world" ]; then
	mkdir -p "$world"
	root="$(cd "$world" && pwd)"
else
	root="$(mktemp -d "${TMPDIR:-/tmp}/owt-demo.XXXXXX")"
fi
export HOME="$root/home" XDG_CONFIG_HOME="$root/config" XDG_STATE_HOME="$root/state" \
	XDG_CACHE_HOME="$root/cache" XDG_DATA_HOME="$root/data" XDG_RUNTIME_DIR="$root/run" \
	TMUX_TMPDIR="$root/tmux"
mkdir -p "$HOME" "$TMUX_TMPDIR" "$XDG_CONFIG_HOME/owt" "$root/bin"
mkdir -m 0700 -p "$XDG_RUNTIME_DIR"
unset TMUX TMUX_PANE GIT_CONFIG_GLOBAL
sock="$TMUX_TMPDIR/tmux-$(id -u)/default"

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
	[ -n "$world" ] || rm -rf "$root"
}
trap cleanup EXIT

# A git identity of the demo's own: Alt+m's merge and ship commit, and
# the agents commit, on any host (git cannot make one up from a host name
# without a domain).
cat > "$HOME/.gitconfig" <<'EOF'
[user]
	name = owt demo
	email = demo@owt.invalid
[init]
	defaultBranch = main
EOF

# The demo agent draws a Claude-like screen; it is installed as "claude"
# so owt's built-in profile (and its hooks) are exercised for real.
ln -sf "$agent" "$root/bin/claude"
for p in owt owt-popup owt-mcp; do
	[ -x "$bin/$p" ] && ln -sf "$bin/$p" "$root/bin/$p"
done
export PATH="$root/bin:$PATH" OWT_DEMO_DIR="$root" OWT_DEMO_HELP="$root/help.txt"

# What each agent does for its task (testdata/fakeagent/playbook.go): a
# block's first line is looked for in the prompt, the rest is its work.
cat > "$root/playbook" <<'EOF'
checkout page
!sleep 2
!write checkout.html <!doctype html>\n<title>Checkout</title>\n<h1>Checkout</h1>\n<section id="cart-summary">2 items · 42.00</section>
!sleep 1
!commit Add a checkout page with a cart summary

login redirect loop
!write login.js // After logging in, go to the page asked for, never back to /login.\nexport function afterLogin(next) {\n  return next && next !== "/login" ? next : "/";\n}
!ask npm test
!commit Fix the login redirect loop

cart totals
!write cart.js export const total = (items) => items.reduce((sum, i) => sum + i.price * i.qty, 0);
!sleep 30m

*
!sleep 2
!write notes/$OWT_NAME.md What was done for this task.
!commit Notes for $OWT_NAME
EOF
# The agent's settings (the environment's win: OWT_FAKE_WORK=… make demo).
printf 'OWT_FAKE_PLAYBOOK=%s\nOWT_FAKE_WORK=2s\n' "$root/playbook" > "$HOME/.fakeagent.env"

repo="$root/shop"
mkdir -p "$repo"
git -C "$repo" init -q -b main
printf '# shop\nA sample repo for the owt demo.\n' > "$repo/README.md"
printf '<!doctype html>\n<title>Shop</title>\n<h1>Shop</h1>\n' > "$repo/index.html"
printf '.env\n' > "$repo/.gitignore"
printf 'API_KEY=demo\n' > "$repo/.env"
git -C "$repo" add README.md index.html .gitignore
git -C "$repo" commit -q -m "initial commit"

# Login shells reset PATH from /etc/profile: put the demo's bin/ back.
# shellcheck disable=SC2016 # expanded by the shell that reads it
printf 'PATH="$OWT_DEMO_DIR/bin:$PATH"\n' > "$HOME/.bash_profile"
cp "$HOME/.bash_profile" "$HOME/.bashrc"
export SHELL=/bin/bash

# The demo's tmux: readable session names in a dark bar, owt's summary on
# the right, and two keys of its own (Alt+h its help, Alt+q end it), which
# work the same inside another tmux (where prefix d would detach that one).
cat > "$HOME/.tmux.conf" <<'CONF'
set -g default-shell /bin/bash
set -g base-index 1
set -g pane-base-index 1
set -g status-left-length 40
# A dark bar: on tmux's default green one, owt's green ● and cyan ○ are
# hard to see or invisible.
set -g status-style 'bg=colour236,fg=colour250'
set -g status-left '[#{session_name}] '
set -g status-right-length 80
set -g status-right '#{owt_status} | Alt+h help | Alt+q quit'
bind-key -n M-h display-popup -E -w 84 -h 30 'less -R "$OWT_DEMO_HELP"'
bind-key -n M-q confirm-before -p 'End the owt demo (its agents and files go)? (y/n)' kill-server
CONF

cat > "$OWT_DEMO_HELP" <<'HELP'
owt demo: three agents work on this repo (shop), each on its own branch,
in its own worktree and tmux session. Nothing here is a real AI.

  checkout  finishes with a commit, ready to merge   ○ idle
  login     asks to run npm test: it needs you       ▲ login in the bar
  cart      keeps working                            ● working

Keys (no prefix):
  Alt+o  control popup: every agent by what it needs, a verb on each row
         (m merge, d diff, enter go there, ? all keys)
  Alt+s  pick an agent and jump to its session
  Alt+m  merge an agent into main, after a safety report: try checkout
  Alt+c  start an agent on a task of yours (it writes a note and commits)
  Alt+d  delete an agent's worktree (asks twice before losing work)
  Alt+h  this help                  Alt+q  end the demo
The bar: [session]  ▲ needs you  ● working  ○ idle  ✕ exited
In login's session press 1 to let it run npm test; it then commits.

In this shell: owt list   owt why login   owt diff checkout
               owt send cart "hello"   git log --oneline main

Leaving: Alt+q ends the demo, inside another tmux too (prefix d detaches
only outside one); everything it made is removed.
HELP

cd "$repo"
tmux -f "$HOME/.tmux.conf" new-session -d -s demo -n demo -c "$repo" -x 160 -y 45 \
	bash -c 'cat "$OWT_DEMO_HELP"; exec bash -l'
owt tmux init
for task in "checkout:Add a checkout page with a cart summary" "login:Fix the login redirect loop" \
	"cart:Refactor the cart totals"; do
	out="$(owt new --name "${task%%:*}" "${task#*:}" 2>&1)" || { printf '%s\n' "$out" >&2; exit 1; }
done

if [ -n "$world" ]; then
	trap - EXIT
	cat <<MSG
owt demo world in $root, its tmux server on $sock
attach: tmux -S '$sock' attach -t demo
end:    tmux -S '$sock' kill-server
MSG
	exit 0
fi

# Inside another tmux the way out is said on the demo's own screen: a
# message printed here would be gone behind the attached client.
if [ -n "$outer" ]; then
	attach=(attach-session -t demo \; display-message -d 8000
		"Inside your tmux: leave the demo with Alt+q (prefix d would detach your own tmux)")
else
	attach=(attach-session -t demo)
fi
# Alt+q kills the demo's server, which ends the attached client with an
# error: that is the way out, not a failure. A client that could not
# attach at all leaves the session there.
if ! tmux "${attach[@]}"; then
	! tmux has-session -t demo 2>/dev/null || exit 1
fi
