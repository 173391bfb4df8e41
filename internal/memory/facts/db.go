// The database: one SQLite file per repository with a full-text index
// (FTS5) ranked by bm25. The driver is pure Go (modernc.org/sqlite), so
// owt and its helpers stay static, cgo-free binaries.
//
// Many processes write at once (agents through owt mcp while the user
// searches): the database is in WAL mode with a busy timeout, and every
// change is one transaction. A database that is not one is set aside
// (renamed, never deleted) and the error says where it went; a damaged
// full-text index is rebuilt from the facts, which it only indexes. A
// database owt may not write is opened to read.

package facts

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go driver, "sqlite"

	"github.com/owt-tmux/owt/internal/memory"
)

// Kind is what sort of fact it is.
type Kind string

// The kinds of facts.
const (
	Decision   Kind = "decision"
	Convention Kind = "convention"
	Gotcha     Kind = "gotcha"
	Fact       Kind = "fact"
)

// Kinds are the kinds in the order help lists them.
var Kinds = []Kind{Decision, Convention, Gotcha, Fact}

// ErrBadKind is returned for a kind not in Kinds.
var ErrBadKind = errors.New("unknown kind")

// ParseKind is the kind called s ("" is Fact).
func ParseKind(s string) (Kind, error) {
	if s == "" {
		return Fact, nil
	}
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("%w %q: one of decision, convention, gotcha, fact", ErrBadKind, s)
}

// Source says where a fact came from.
type Source struct {
	// From is who or what: "user", "agent", "done" (an owt done
	// summary), "note", "review" (a review comment a reaction
	// delivered), "commit" (a commit message of merged work).
	From string `json:"from"`
	// Agent is the worktree whose agent said it, if one did.
	Agent string `json:"agent,omitempty"`
	// Ref points at the source itself: a commit id, a file path, a
	// pull request; the fact is stale once it is gone.
	Ref string `json:"ref,omitempty"`
	// Branch is the branch it was learned on, if any.
	Branch string `json:"branch,omitempty"`
}

// Item is one fact.
type Item struct {
	ID      int64     `json:"id"`
	Text    string    `json:"text"`
	Kind    Kind      `json:"kind"`
	Pinned  bool      `json:"pinned"`
	Source  Source    `json:"source"`
	Created time.Time `json:"created"`
	// Stale says why the fact may no longer hold (its source is gone).
	Stale string `json:"stale,omitempty"`
	// Rank is a search hit's bm25 score (lower is better).
	Rank float64 `json:"rank,omitempty"`
}

// DB is one repository's memory.
type DB struct {
	db   *sql.DB
	Path string
	// ReadOnly: owt may not write the database; it was opened to read.
	ReadOnly bool
}

// ErrCorrupt wraps a database that could not be read as one; it was set
// aside.
var ErrCorrupt = errors.New("memory database is corrupt")

// Open opens (and creates) the memory of the repository at root, at
// memory.PathFor's path (owt finds it there without linking this package).
func Open(root string) (*DB, error) { return OpenPath(memory.PathFor(root)) }

// schemaVersion is the schema's user_version: bump it with the schema.
const schemaVersion = 1

const schema = `
CREATE TABLE IF NOT EXISTS facts (
	id         INTEGER PRIMARY KEY,
	text       TEXT    NOT NULL,
	kind       TEXT    NOT NULL,
	pinned     INTEGER NOT NULL DEFAULT 0,
	source     TEXT    NOT NULL,
	agent      TEXT    NOT NULL DEFAULT '',
	ref        TEXT    NOT NULL DEFAULT '',
	branch     TEXT    NOT NULL DEFAULT '',
	created    INTEGER NOT NULL,
	stale      TEXT    NOT NULL DEFAULT '',
	merged_into INTEGER
);
` + ftsTable + `
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE OF text ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
	INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TABLE IF NOT EXISTS mined (key TEXT PRIMARY KEY, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS reports (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, body TEXT NOT NULL);
`

// OpenPath opens the database at path, creating it. A file that is not a
// database is set aside and ErrCorrupt returned, naming where it went.
func OpenPath(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create the memory folder: %w", err)
	}
	db, err := open(path)
	if err == nil {
		return db, nil
	}
	if isBusy(err) {
		return nil, busy(path, err)
	}
	if !isCorrupt(err) {
		return nil, fmt.Errorf("open memory %s: %w", path, err)
	}
	return nil, setAside(path, err)
}

// clock is the clock of the set-aside names (tests hold it still).
var clock = time.Now

// setAside moves the corrupt database at path (and its -wal and -shm)
// to a name that did not exist, path.corrupt-TIME, with -2, -3 … after
// it when one set aside in the same second is there: an earlier one is
// never replaced, and nothing is deleted. It returns the error to show,
// ErrCorrupt naming where the file went.
func setAside(path string, err error) error {
	stamp := fmt.Sprintf("%s.corrupt-%s", path, clock().UTC().Format("20060102T150405"))
	for n := 1; n <= 1000; n++ {
		aside := stamp
		if n > 1 {
			aside = fmt.Sprintf("%s-%d", stamp, n)
		}
		rerr := renameNoReplace(path, aside)
		if errors.Is(rerr, fs.ErrExist) {
			continue
		}
		if rerr != nil {
			return fmt.Errorf("%w: %s (%v); could not set it aside: %v", ErrCorrupt, path, err, rerr)
		}
		for _, ext := range []string{"-wal", "-shm"} {
			_ = renameNoReplace(path+ext, aside+ext)
		}
		return fmt.Errorf("%w: %s (%v); set aside as %s, a new one starts next time", ErrCorrupt, path, err, aside)
	}
	return fmt.Errorf("%w: %s (%v); could not set it aside: every name %s-N is taken", ErrCorrupt, path, err, stamp)
}

// renameNoReplace renames src to dst only when dst does not exist
// (fs.ErrExist when it does): dst is first made, empty, with O_EXCL, so
// another process setting a file aside at the same moment gets another
// name, and the rename replaces only that placeholder of ours.
func renameNoReplace(src, dst string) error {
	if _, err := os.Lstat(src); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_ = f.Close()
	if err := os.Rename(src, dst); err != nil {
		_ = os.Remove(dst)
		return err
	}
	return nil
}

func open(path string) (*DB, error) {
	d, err := openMode(path, false)
	if err == nil || isBusy(err) || isCorrupt(err) {
		return d, err
	}
	if _, serr := os.Stat(path); serr != nil {
		return nil, err
	}
	// A database owt may not write (another user's, a read-only folder
	// or file system) is still read: its facts listed, searched and
	// given to agents; a change fails with SQLite's own words.
	if ro, rerr := openMode(path, true); rerr == nil {
		return ro, nil
	}
	return nil, err
}

// openMode opens the database at path: read and write (made when
// missing, in WAL mode, the schema made, mode 0600), or readOnly as it
// is. A read-only database without a write-ahead log to apply is opened
// immutable: SQLite then needs no -shm file, which a read-only folder
// cannot hold.
func openMode(path string, readOnly bool) (*DB, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout/time.Millisecond)) + ")"
	if readOnly {
		dsn += "&mode=ro"
		if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
			dsn += "&immutable=1"
		}
	} else {
		dsn += "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	// The schema is made once (user_version says so): every command opens
	// the database, and seven CREATE … IF NOT EXISTS cost a search more
	// than its query.
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		_ = db.Close()
		return nil, err
	}
	if readOnly {
		if version != schemaVersion {
			_ = db.Close()
			return nil, fmt.Errorf("read-only memory of schema %d (this owt reads %d)", version, schemaVersion)
		}
		return &DB{db: db, Path: path, ReadOnly: true}, nil
	}
	if version != schemaVersion {
		if _, err := db.Exec(schema + fmt.Sprintf("PRAGMA user_version = %d;", schemaVersion)); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o600 {
		if err := os.Chmod(path, 0o600); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	return &DB{db: db, Path: path}, nil
}

// ErrBusy is a database another process holds locked for longer than
// the busy timeout: nothing was changed, and trying again later works.
var ErrBusy = errors.New("memory database is locked")

// busyTimeout is how long a command waits for another's lock.
const busyTimeout = 10 * time.Second

func isBusy(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked")
}

// busy is the one line said for a database locked past the busy timeout.
func busy(path string, err error) error {
	return fmt.Errorf("%w: another process has held %s for more than %s (%v); nothing was changed, try again once it is done",
		ErrBusy, path, busyTimeout, err)
}

func isCorrupt(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "file is not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_NOTADB") || strings.Contains(msg, "SQLITE_CORRUPT")
}

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// fail is err of op, said for a user; a database found damaged on the
// way (SQLite's "malformed") is closed and set aside like one that does
// not open, so the next command starts a new one instead of failing on
// it for ever.
func (d *DB) fail(op string, err error) error {
	if isBusy(err) {
		return fmt.Errorf("%s: %w", op, busy(d.Path, err))
	}
	if !isCorrupt(err) {
		return fmt.Errorf("%s: %w", op, err)
	}
	if d.factsReadable() {
		// The facts are whole: what is damaged is beside them (the search
		// index, rebuilt by retry), or cannot be mended here. Setting the
		// database aside would lose every fact from view for that.
		return fmt.Errorf("%s: %s: %w", op, d.Path, err)
	}
	_ = d.db.Close()
	return setAside(d.Path, err)
}

// factsReadable reports whether every fact can still be read: the
// facts table scans whole.
func (d *DB) factsReadable() bool {
	rows, err := d.db.Query(`SELECT id, text, kind, pinned, source, agent, ref, branch, created, stale, merged_into FROM facts`)
	if err != nil {
		return false
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err() == nil
}

// retry runs f; when it fails on a damaged full-text index while the
// facts are whole, the index is rebuilt from them (it holds nothing
// else) and f runs once more. Any other failure is d.fail's.
func (d *DB) retry(op string, f func() error) error {
	err := f()
	if err == nil {
		return nil
	}
	if !isCorrupt(err) || !d.factsReadable() {
		return d.fail(op, err)
	}
	if rerr := d.rebuildIndex(); rerr != nil {
		return fmt.Errorf("%s: the search index of %s is damaged (%v) and could not be rebuilt: %w; the facts are kept", op, d.Path, err, rerr)
	}
	if err := f(); err != nil {
		return d.fail(op, err)
	}
	return nil
}

// ftsTable is the full-text index over facts.text (external content:
// it can be rebuilt from facts at any time).
const ftsTable = `CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(text, content='facts', content_rowid='id', tokenize='porter unicode61');`

// rebuildIndex makes the full-text index again from the facts: FTS5's
// rebuild, or, when that fails on the damage, the index dropped and made
// anew.
func (d *DB) rebuildIndex() error {
	if _, err := d.db.Exec(`INSERT INTO facts_fts(facts_fts) VALUES('rebuild')`); err == nil {
		return nil
	}
	tx, err := d.db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, q := range []string{`DROP TABLE IF EXISTS facts_fts`, ftsTable, `INSERT INTO facts_fts(facts_fts) VALUES('rebuild')`} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// MaxText bounds one fact (4 KiB): memory is for facts, not documents.
const MaxText = 4 << 10

// ErrBadText is returned for empty or oversized text.
var ErrBadText = errors.New("bad fact")

// CheckText is a fact's text as it is stored: trimmed, not empty, at
// most MaxText.
func CheckText(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", fmt.Errorf("%w: the text is empty", ErrBadText)
	case len(s) > MaxText:
		return "", fmt.Errorf("%w: %d bytes; a fact is at most %d", ErrBadText, len(s), MaxText)
	}
	return s, nil
}

// Add stores a fact and returns it with its id.
func (d *DB) Add(text string, kind Kind, pinned bool, src Source, now time.Time) (Item, error) {
	text, err := CheckText(text)
	if err != nil {
		return Item{}, err
	}
	if _, err := ParseKind(string(kind)); err != nil {
		return Item{}, err
	}
	if src.From == "" {
		src.From = "user"
	}
	var id int64
	err = d.retry("add to memory", func() error {
		res, err := d.db.Exec(`INSERT INTO facts(text, kind, pinned, source, agent, ref, branch, created) VALUES (?,?,?,?,?,?,?,?)`,
			text, string(kind), boolInt(pinned), src.From, src.Agent, src.Ref, src.Branch, now.UnixMilli())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Item{}, err
	}
	return Item{ID: id, Text: text, Kind: kind, Pinned: pinned, Source: src, Created: now}, nil
}

// AddOnce adds a fact mined from key (a commit, a done summary) unless
// that key was mined before; it reports whether it added.
func (d *DB) AddOnce(key, text string, kind Kind, src Source, now time.Time) (bool, error) {
	text, err := CheckText(text)
	if err != nil {
		return false, err
	}
	added := false
	err = d.retry("mine into memory", func() error {
		added = false
		tx, err := d.db.Begin()
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		res, err := tx.Exec(`INSERT OR IGNORE INTO mined(key, at) VALUES (?, ?)`, key, now.UnixMilli())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if _, err := tx.Exec(`INSERT INTO facts(text, kind, pinned, source, agent, ref, branch, created) VALUES (?,?,0,?,?,?,?,?)`,
			text, string(kind), src.From, src.Agent, src.Ref, src.Branch, now.UnixMilli()); err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		added = true
		return nil
	})
	return added, err
}

// Forget deletes the fact id; it reports whether there was one.
func (d *DB) Forget(id int64) (bool, error) {
	var n int64
	err := d.retry(fmt.Sprintf("forget %d", id), func() error {
		res, err := d.db.Exec(`DELETE FROM facts WHERE id = ?`, id)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n > 0, err
}

const columns = `f.id, f.text, f.kind, f.pinned, f.source, f.agent, f.ref, f.branch, f.created, f.stale`

func scan(rows *sql.Rows, withRank bool) ([]Item, error) {
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var it Item
		var pinned int
		var created int64
		dst := []any{&it.ID, &it.Text, &it.Kind, &pinned, &it.Source.From, &it.Source.Agent, &it.Source.Ref, &it.Source.Branch, &created, &it.Stale}
		if withRank {
			dst = append(dst, &it.Rank)
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, err
		}
		it.Pinned, it.Created = pinned != 0, time.UnixMilli(created)
		out = append(out, it)
	}
	return out, rows.Err()
}

// List is every live fact (not merged into another), pinned first, then
// newest first; kind "" lists every kind.
func (d *DB) List(kind Kind) ([]Item, error) {
	q := `SELECT ` + columns + ` FROM facts f WHERE f.merged_into IS NULL`
	var args []any
	if kind != "" {
		q += ` AND f.kind = ?`
		args = append(args, string(kind))
	}
	rows, err := d.db.Query(q+` ORDER BY f.pinned DESC, f.created DESC, f.id DESC`, args...)
	if err != nil {
		return nil, d.fail("list memory", err)
	}
	return scan(rows, false)
}

// Search is the facts matching every word of query (any word when none
// matches them all), best first by bm25, at most limit.
func (d *DB) Search(query string, limit int) ([]Item, error) {
	words := Words(query)
	if len(words) == 0 {
		return nil, fmt.Errorf("%w: the query has no words", ErrBadText)
	}
	hits, err := d.match(strings.Join(quoted(words), " AND "), limit)
	if err != nil || len(hits) > 0 || len(words) == 1 {
		return hits, err
	}
	return d.match(strings.Join(quoted(words), " OR "), limit)
}

// Relevant is the facts sharing words with text, best first: what a new
// agent's task should know.
func (d *DB) Relevant(text string, limit int) ([]Item, error) {
	words := Words(text)
	if len(words) == 0 {
		return nil, nil
	}
	return d.match(strings.Join(quoted(words), " OR "), limit)
}

func (d *DB) match(expr string, limit int) ([]Item, error) {
	var out []Item
	err := d.retry("search memory", func() error {
		rows, err := d.db.Query(`SELECT `+columns+`, bm25(facts_fts) AS rank FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid
		WHERE facts_fts MATCH ? AND f.merged_into IS NULL ORDER BY rank LIMIT ?`, expr, limit)
		if err != nil {
			return err
		}
		out, err = scan(rows, true) // a damaged index may fail only as its rows are read
		return err
	})
	return out, err
}

// Words are the searchable words of s: letters and digits, lower case,
// at most 32 of them, so no FTS5 syntax of the user's ever reaches the
// query.
func Words(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != 0xfeff)
	}) {
		if len(w) < 2 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == 32 {
			break
		}
	}
	return out
}

var stopWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "that": true, "this": true,
	"from": true, "into": true, "are": true, "was": true, "is": true, "it": true, "to": true, "of": true,
	"in": true, "on": true, "an": true, "be": true, "or": true, "as": true, "at": true, "by": true}

func quoted(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return out
}

// Pinned is every pinned live fact, newest first.
func (d *DB) Pinned() ([]Item, error) {
	rows, err := d.db.Query(`SELECT ` + columns + ` FROM facts f WHERE f.merged_into IS NULL AND f.pinned = 1 ORDER BY f.created DESC`)
	if err != nil {
		return nil, d.fail("read pinned facts", err)
	}
	return scan(rows, false)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Merge folds the facts dups into keep: they no longer list or match,
// and keep stays. Pinning one pins keep.
func (d *DB) Merge(keep int64, dups []int64) error {
	tx, err := d.db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	for _, id := range dups {
		if id == keep {
			continue
		}
		var pinned int
		if err := tx.QueryRow(`SELECT pinned FROM facts WHERE id = ?`, id).Scan(&pinned); err != nil {
			return fmt.Errorf("merge fact %d: %w", id, err)
		}
		if _, err := tx.Exec(`UPDATE facts SET merged_into = ? WHERE id = ?`, keep, id); err != nil {
			return fmt.Errorf("merge fact %d: %w", id, err)
		}
		if pinned != 0 {
			if _, err := tx.Exec(`UPDATE facts SET pinned = 1 WHERE id = ?`, keep); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// SetStale marks fact id as possibly stale, saying why ("" clears it).
func (d *DB) SetStale(id int64, why string) error {
	_, err := d.db.Exec(`UPDATE facts SET stale = ? WHERE id = ?`, why, id)
	return err
}

// KeptReport is what one consolidation pass found, as text for people and
// the pass's figures.
type KeptReport struct {
	ID   int64     `json:"id"`
	At   time.Time `json:"at"`
	Body string    `json:"body"`
}

// AddReport keeps a pass's report; the last 50 are kept.
func (d *DB) AddReport(at time.Time, body string) error {
	if _, err := d.db.Exec(`INSERT INTO reports(at, body) VALUES (?, ?)`, at.UnixMilli(), body); err != nil {
		return fmt.Errorf("keep the memory report: %w", err)
	}
	_, err := d.db.Exec(`DELETE FROM reports WHERE id NOT IN (SELECT id FROM reports ORDER BY id DESC LIMIT 50)`)
	return err
}

// Reports are the last n reports, newest first.
func (d *DB) Reports(n int) ([]KeptReport, error) {
	rows, err := d.db.Query(`SELECT id, at, body FROM reports ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, d.fail("read memory reports", err)
	}
	defer rows.Close()
	var out []KeptReport
	for rows.Next() {
		var r KeptReport
		var at int64
		if err := rows.Scan(&r.ID, &at, &r.Body); err != nil {
			return nil, err
		}
		r.At = time.UnixMilli(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
