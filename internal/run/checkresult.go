package run

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// CheckOutputMark tells a file's content apart without reading it (a
// build's output may be large): its size and modification time, "gone"
// when it does not exist.
func CheckOutputMark(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "gone"
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}

// NotCheckOutput is files without those the checks wrote (res.Wrote) and
// that are still as they left them: the agent's uncommitted work.
func (res *CheckResult) NotCheckOutput(dir string, files []string) []string {
	if res == nil || len(res.Wrote) == 0 {
		return files
	}
	var out []string
	for _, f := range files {
		if mark, ok := res.Wrote[f]; !ok || mark != CheckOutputMark(filepath.Join(dir, f)) {
			out = append(out, f)
		}
	}
	return out
}

// ApplyChecking notes that the checks run on the task's tree (once).
func (r *Run) ApplyChecking(t *TaskRun, v Verdict, now time.Time) []Event {
	owed := string(RunChecks)
	if t.Owed == owed && t.State == Running {
		return nil
	}
	ev := v.Evidence
	t.Evidence, t.Owed, t.Why = &ev, owed, v.Why
	r.SetTask(t, Running, now)
	return []Event{{At: now, Event: "checking", Task: t.ID, Detail: v.Why}}
}
