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
cleanup() { tmux kill-server 2>/dev/null || true; rm -rf "$root"; }
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
set -g status-right '#{?#{@owt-status},owt: #{@owt-status} ,}%H:%M'
CONF

cd "$repo"
tmux new-session -d -s demo -c "$repo"
owt new "Add a checkout page with a cart summary" >/dev/null
owt new "Fix the login redirect loop" >/dev/null
tmux send-keys -t demo -l "owt list   # try: owt send <name> '!ask', owt switch <name>, owt delete <name> --force"
tmux send-keys -t demo Enter

cat <<MSG
owt demo: a private tmux server with two demo agents in $repo.
Commands to try inside: owt list, owt send NAME "hello", owt switch NAME,
owt new "Refactor the cart", owt delete NAME --force.
Detach (prefix d) or exit to end the demo; everything is removed afterwards.
MSG
tmux attach-session -t demo
