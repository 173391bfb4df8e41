package usage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// FormatOpenCode is OpenCode's database: SQLite, which owt does not link.
// The tracker asks OpenCode (its func, the monitor runs owt-mcp) for a
// folder's figures, added up by day and model, when the database changed
// since it last asked, and takes them as they are: a message OpenCode
// fills in later is counted as it is now, never twice.
const FormatOpenCode = "opencode"

// OpenCodeQuery asks for the usage of OpenCode's sessions in Dir started
// since Since.
type OpenCodeQuery struct {
	Dir   string    `json:"dir"`
	Since time.Time `json:"since"`
}

// OpenCodeRow is the usage of one folder's sessions on one day with one
// model (the JSON of owt-mcp _opencode-usage).
type OpenCodeRow struct {
	Dir   string `json:"dir"`
	Day   string `json:"day"`
	Model string `json:"model"`
	Tokens
}

// OpenCodeDB is where OpenCode (1.18.33) keeps its database for the user
// whose home is home: OPENCODE_DB (a name in its data folder, or a
// path), else $XDG_DATA_HOME/opencode/opencode.db, else
// ~/.local/share/opencode/opencode.db.
func OpenCodeDB(home string) string {
	data := filepath.Join(home, ".local", "share", "opencode")
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		data = filepath.Join(d, "opencode")
	}
	if p := os.Getenv("OPENCODE_DB"); p != "" && p != ":memory:" {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(data, p)
	}
	return filepath.Join(data, "opencode.db")
}

// openCodeTimeout bounds one question to OpenCode's database.
const openCodeTimeout = 10 * time.Second

// openCodeMark is what a database looks like from outside: its file's
// and its write-ahead log's size and time. The same mark: nothing to ask.
func openCodeMark(db string) string {
	mark := ""
	for _, p := range []string{db, db + "-wal"} {
		if info, err := os.Stat(p); err == nil {
			mark += info.ModTime().Format(time.RFC3339Nano) + "/" + strconv.FormatInt(info.Size(), 10) + " "
		} else {
			mark += "- "
		}
	}
	return mark
}

// openCode fills the OpenCode figures of the sources srcs (their agents
// in agents, by name) when the database changed since the last ask,
// reporting the names whose figures changed.
func (t *Tracker) openCode(srcs []Source, agents map[string]*Agent) []string {
	if t.OpenCode == nil || len(srcs) == 0 {
		return nil
	}
	db := t.OpenCodeDB
	if db == "" {
		db = OpenCodeDB(t.Home)
	}
	mark := openCodeMark(db)
	var qs []OpenCodeQuery
	for _, s := range srcs {
		a := agents[s.Name]
		fst := a.Files[db]
		if fst == nil || fst.Format != FormatOpenCode || fst.mark != mark {
			qs = append(qs, OpenCodeQuery{Dir: s.Dir, Since: s.Since})
		}
	}
	if len(qs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), openCodeTimeout)
	defer cancel()
	rows, err := t.OpenCode(ctx, db, qs)
	if err != nil {
		t.Logf("usage of OpenCode's sessions: %v", err)
		return nil
	}
	byDir := map[string]Days{}
	for _, q := range qs {
		byDir[q.Dir] = Days{}
	}
	for _, r := range rows {
		if !r.Tokens.sane() {
			t.Logf("usage of OpenCode's sessions in %s: skipped %s's figures of %s with impossible token counts %+v", r.Dir, r.Model, r.Day, r.Tokens)
			continue
		}
		if d, ok := byDir[r.Dir]; ok {
			d.add(r.Day, orUnknown(r.Model), r.Tokens)
		}
	}
	var changed []string
	for _, s := range srcs {
		days, ok := byDir[s.Dir]
		if !ok {
			continue
		}
		a := agents[s.Name]
		fst := a.Files[db]
		if fst == nil || fst.Format != FormatOpenCode {
			fst = &FileState{Format: FormatOpenCode, Days: Days{}}
			a.Files[db] = fst
		}
		fst.mark = mark
		if !sameDays(fst.Days, days) {
			fst.Days = days
			fst.LastMod, fst.Modified = latestModel(days), time.Now().UnixNano()
			changed = append(changed, s.Name)
		}
	}
	return changed
}

// latestModel is the model of the latest day's most used model.
func latestModel(d Days) string {
	day := ""
	for k := range d {
		if k > day {
			day = k
		}
	}
	best, most := "", int64(-1)
	for model, t := range d[day] {
		if t.Total() > most || t.Total() == most && model < best {
			best, most = model, t.Total()
		}
	}
	return best
}

func sameDays(a, b Days) bool {
	if len(a) != len(b) {
		return false
	}
	for day, m := range a {
		o, ok := b[day]
		if !ok || len(o) != len(m) {
			return false
		}
		for model, t := range m {
			if o[model] != t {
				return false
			}
		}
	}
	return true
}
