package engine

import "strings"

// sayOnce logs err under key ("run NAME", "runs") once per change: a
// problem that lasts (a corrupt run file) is one line in the monitor's
// log, not one a tick; a new text is said again, and nil forgets it.
func (e *Engine) sayOnce(key string, err error) {
	if err == nil {
		delete(e.said, key)
		return
	}
	msg := err.Error()
	if e.said[key] == msg {
		return
	}
	if e.said == nil {
		e.said = map[string]string{}
	}
	e.said[key] = msg
	repo := ""
	if name, ok := strings.CutPrefix(key, "run "); ok {
		if r, err := e.Store.Load(name); err == nil {
			repo = r.Repo
		}
	}
	e.logf(repo, "", "%s: %s", key, msg)
}
