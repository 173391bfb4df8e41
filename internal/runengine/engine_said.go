package runengine

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
	e.logf("%s: %s", key, msg)
}
