#!/usr/bin/env bash
# owt's tmux plugin entry: TPM runs it (set -g @plugin '…/owt'), and so can
# a plain `run-shell /path/to/owt/owt.tmux`. It only finds the owt binary —
# building or downloading it in the background when needed, so tmux never
# waits for it — and hands over to `owt tmux init`, which binds the keys.
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/scripts/bootstrap.sh" start
