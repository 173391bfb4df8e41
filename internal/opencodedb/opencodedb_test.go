package opencodedb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newDB makes a database with OpenCode 1.18.33's own schema.
func newDB(t *testing.T) (*sql.DB, string) {
	t.Helper()
	schema, err := os.ReadFile("../../testdata/fakeagent/opencode-schema-1.18.33.sql")
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", "file:"+path)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = db.Exec(string(schema))
	require.NoError(t, err)
	_, err = db.Exec("PRAGMA journal_mode=WAL") // as OpenCode runs it
	require.NoError(t, err)
	_, err = db.Exec("INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('p', '/', 0, 0, '[]')")
	require.NoError(t, err)
	return db, path
}

func session(t *testing.T, db *sql.DB, id, dir string, at time.Time) {
	t.Helper()
	_, err := db.Exec("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, 'p', ?, ?, 't', '1.18.33', ?, ?)",
		id, id, dir, at.UnixMilli(), at.UnixMilli())
	require.NoError(t, err)
}

// message writes a message as OpenCode does (its data JSON), or updates
// it in place when it is there (OpenCode fills in the tokens at a step's
// end).
func message(t *testing.T, db *sql.DB, id, sess, role, model string, at time.Time, in, out, reason, cr, cw int) {
	t.Helper()
	data := fmt.Sprintf(`{"role":%q,"sessionID":%q,"modelID":%q,"providerID":"anthropic","cost":0,"tokens":{"input":%d,"output":%d,"reasoning":%d,"cache":{"read":%d,"write":%d}},"time":{"created":%d}}`,
		role, sess, model, in, out, reason, cr, cw, at.UnixMilli())
	_, err := db.Exec(`INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated`, id, sess, at.UnixMilli(), time.Now().UnixMilli(), data)
	require.NoError(t, err)
}

func TestUsageAddsUpAFoldersAssistantMessagesByDayAndModel(t *testing.T) {
	db, path := newDB(t)
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.Local)
	session(t, db, "s1", "/wt/a", start)
	session(t, db, "s2", "/wt/a", start.Add(time.Hour)) // a subagent's, same folder
	session(t, db, "old", "/wt/a", start.Add(-48*time.Hour))
	session(t, db, "other", "/wt/b", start)
	message(t, db, "m1", "s1", "user", "", start, 0, 0, 0, 0, 0)
	message(t, db, "m2", "s1", "assistant", "claude-sonnet-4-5", start, 100, 20, 5, 1000, 50)
	message(t, db, "m3", "s2", "assistant", "claude-sonnet-4-5", start.Add(time.Hour), 10, 2, 0, 0, 0)
	message(t, db, "m4", "s1", "assistant", "gpt-5", start.Add(24*time.Hour), 7, 3, 0, 0, 0)
	message(t, db, "m5", "old", "assistant", "gpt-5", start.Add(-48*time.Hour), 999, 999, 0, 0, 0)
	message(t, db, "m6", "other", "assistant", "gpt-5", start, 555, 555, 0, 0, 0)

	rows, err := Usage(context.Background(), path, []Query{{Dir: "/wt/a", Since: start}})
	require.NoError(t, err)
	require.Equal(t, []Row{
		{Dir: "/wt/a", Day: "2026-11-27", Model: "claude-sonnet-4-5", Input: 110, Output: 27, CacheWrite: 50, CacheRead: 1000, Messages: 2},
		{Dir: "/wt/a", Day: "2026-11-28", Model: "gpt-5", Input: 7, Output: 3, Messages: 1},
	}, rows)

	// A message filled in later counts as it is now, never twice.
	message(t, db, "m4", "s1", "assistant", "gpt-5", start.Add(24*time.Hour), 70, 30, 0, 0, 0)
	rows, err = Usage(context.Background(), path, []Query{{Dir: "/wt/a", Since: start}})
	require.NoError(t, err)
	require.Equal(t, int64(70), rows[1].Input)
	require.Equal(t, int64(1), rows[1].Messages)
}

func TestUsageOfNoDatabaseIsNone(t *testing.T) {
	rows, err := Usage(context.Background(), filepath.Join(t.TempDir(), "opencode.db"), []Query{{Dir: "/x"}})
	require.NoError(t, err)
	require.Empty(t, rows)
}
