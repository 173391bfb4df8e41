// Package opencodedb reads OpenCode's token usage from its own database.
// OpenCode (1.18.33) keeps its sessions in SQLite (where: usage.OpenCodeDB):
// a session row per conversation with the
// directory it ran in, and a message row per message whose data (JSON)
// holds, for an assistant message, its modelID and tokens {input, output,
// reasoning, cache {read, write}} — the figures OpenCode's own stats
// command adds up.
//
// Only owt-mcp links it (owt itself does not link SQLite): the monitor
// runs "owt-mcp _opencode-usage" when the database changed. The database
// is opened read-only and never written.
package opencodedb

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"time"

	_ "modernc.org/sqlite" // the pure-Go driver, "sqlite"
)

// Query asks for the usage of the sessions OpenCode ran in Dir, started
// since Since (a session of an earlier agent in a folder of the same
// name is not this one's).
type Query struct {
	Dir   string    `json:"dir"`
	Since time.Time `json:"since"`
}

// Row is the usage of one folder's sessions on one day with one model.
// Output includes reasoning tokens; Input is what OpenCode counted as
// input (not read from or written to a cache).
type Row struct {
	Dir        string `json:"dir"`
	Day        string `json:"day"` // YYYY-MM-DD, local time
	Model      string `json:"model"`
	Input      int64  `json:"input_tokens"`
	Output     int64  `json:"output_tokens"`
	CacheWrite int64  `json:"cache_write_tokens"`
	CacheRead  int64  `json:"cache_read_tokens"`
	Messages   int64  `json:"messages"`
}

// byDay adds up one folder's assistant messages by local day and model.
// The day is the message's own time_created (ms since the epoch).
const byDay = `SELECT date(m.time_created / 1000, 'unixepoch', 'localtime') AS day,
	coalesce(json_extract(m.data, '$.modelID'), '') AS model,
	sum(coalesce(json_extract(m.data, '$.tokens.input'), 0)),
	sum(coalesce(json_extract(m.data, '$.tokens.output'), 0) + coalesce(json_extract(m.data, '$.tokens.reasoning'), 0)),
	sum(coalesce(json_extract(m.data, '$.tokens.cache.write'), 0)),
	sum(coalesce(json_extract(m.data, '$.tokens.cache.read'), 0)),
	count(*)
FROM message m JOIN session s ON s.id = m.session_id
WHERE s.directory = ? AND s.time_created >= ? AND json_extract(m.data, '$.role') = 'assistant'
GROUP BY day, model ORDER BY day, model`

// Usage reads the usage of each query's folder from the database at
// path, read-only. A database that is not there is no usage (nil, nil).
func Usage(ctx context.Context, path string, qs []Query) ([]Row, error) {
	if _, err := os.Stat(path); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	// mode=ro: never written; busy_timeout: OpenCode writes while we read.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?mode=ro&_pragma=busy_timeout(2000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open OpenCode's database %s: %w", path, err)
	}
	defer db.Close()
	var out []Row
	for _, q := range qs {
		rows, err := db.QueryContext(ctx, byDay, q.Dir, q.Since.Add(-time.Minute).UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("read OpenCode's database %s: %w", path, err)
		}
		for rows.Next() {
			r := Row{Dir: q.Dir}
			if err := rows.Scan(&r.Day, &r.Model, &r.Input, &r.Output, &r.CacheWrite, &r.CacheRead, &r.Messages); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read OpenCode's database %s: %w", path, err)
			}
			out = append(out, r)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read OpenCode's database %s: %w", path, err)
		}
	}
	return out, nil
}
