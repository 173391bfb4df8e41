package main

import (
	"crypto/rand"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite"
)

// openCodeSchema is the schema OpenCode 1.18.33 makes for its database.
//
//go:embed opencode-schema-1.18.33.sql
var openCodeSchema string

// openCodeModel is the model the fake OpenCode's messages name.
const openCodeModel = "claude-sonnet-4-5"

// openCodeTurn records one turn in OpenCode's database as OpenCode
// 1.18.33 does ($XDG_DATA_HOME/opencode/opencode.db, else
// ~/.local/share/opencode/opencode.db): the session (its directory the
// cwd) at the first turn, the user's message, and the assistant's
// message, written first with no tokens and filled in at the step's end.
// Only for the opencode persona; a failure is logged, never fatal.
func (a *app) openCodeTurn(prompt string, u turnUsage) {
	if a.p.name != "opencode" {
		return
	}
	if err := a.writeOpenCodeTurn(prompt, u); err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: opencode database: %v\n", err)
	}
}

func (a *app) writeOpenCodeTurn(prompt string, u turnUsage) error {
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		home, _ := os.UserHomeDir()
		data = filepath.Join(home, ".local", "share")
	}
	dir := filepath.Join(data, "opencode")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "opencode.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return err
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'message'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := db.Exec(openCodeSchema); err != nil {
			return err
		}
	}
	now := time.Now().UnixMilli()
	if a.openCodeSession == "" {
		a.openCodeSession = "ses_" + randomID()
		if _, err := db.Exec("INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', ?, ?, '[]')", now, now); err != nil {
			return err
		}
		if _, err := db.Exec("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'global', ?, ?, ?, '1.18.33', ?, ?)",
			a.openCodeSession, a.openCodeSession, a.cwd, "fake session", now, now); err != nil {
			return err
		}
	}
	msg := func(role string, u turnUsage) string {
		return fmt.Sprintf(`{"role":%q,"sessionID":%q,"modelID":%q,"providerID":"anthropic","mode":"build","agent":"build","cost":0,"tokens":{"input":%d,"output":%d,"reasoning":0,"cache":{"read":%d,"write":%d}},"time":{"created":%d}}`,
			role, a.openCodeSession, openCodeModel, u.input, u.output, u.cacheRead, u.cacheWrite, now)
	}
	insert := "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)"
	if _, err := db.Exec(insert, "msg_"+randomID(), a.openCodeSession, now, now, msg("user", turnUsage{})); err != nil {
		return err
	}
	id := "msg_" + randomID()
	if _, err := db.Exec(insert, id, a.openCodeSession, now, now, msg("assistant", turnUsage{})); err != nil {
		return err
	}
	_, err = db.Exec("UPDATE message SET data = ?, time_updated = ? WHERE id = ?", msg("assistant", u), time.Now().UnixMilli(), id)
	return err
}

func randomID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
