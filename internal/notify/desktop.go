package notify

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/owt-tmux/owt/internal/config"
)

// desktopChannel shows a notice on the desktop.
type desktopChannel struct{ deps Deps }

func desktopRoute(cfg config.Notify, deps Deps) (Route, bool) {
	if !cfg.Desktop.Enabled {
		return Route{}, false
	}
	return Route{Channel: desktopChannel{deps: deps}, On: on(cfg.Desktop.On, cfg)}, true
}

func (desktopChannel) Name() string { return "desktop" }

func (d desktopChannel) Send(_ context.Context, n Notice) error {
	if err := startReaped(exec.Command("notify-send", "--app-name=owt", "owt", n.Text)); err != nil {
		return Permanent(fmt.Errorf("run notify-send: %w", err))
	}
	return nil
}
