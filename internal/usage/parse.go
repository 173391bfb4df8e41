package usage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"syscall"
	"time"
)

// The formats a session file can have.
const (
	FormatClaude = "claude" // Claude Code transcript JSONL
	FormatCodex  = "codex"  // Codex rollout JSONL
	FormatGemini = "gemini" // Gemini CLI chat JSONL
)

// seenKept is how many message ids a file remembers: a tool writes the
// lines of one message close together (Claude one line per content block,
// each with the message's usage; Gemini the message again when it
// changes), so a short memory is enough to count each message once.
const seenKept = 16

// maxLine is the longest line read whole; a longer one (a huge tool
// result) is skipped: usage lines are short. It is under a tick's read
// budget, so a long line is passed in one tick, never read again.
const maxLine = 4 << 20

// FileState is how far one session file has been read, and what it
// counted so far. It is kept in the usage file, so a restarted monitor
// goes on where the last one stopped.
type FileState struct {
	Format string `json:"format"`
	// Dev and Ino identify the file: another file at the path (rotated,
	// rewritten) is read from its start again.
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
	// Offset is the byte after the last whole line read.
	Offset int64 `json:"offset"`
	// Seen are the ids of the last messages counted, newest last; Last is
	// what the newest was counted as, so a later line of the same message
	// with larger figures (a streamed message) counts only the difference.
	Seen    []string `json:"seen,omitempty"`
	Last    Tokens   `json:"last"`
	LastDay string   `json:"last_day,omitempty"`
	LastMod string   `json:"last_model,omitempty"`
	Model   string   `json:"model,omitempty"` // Codex: the model of the current turn (turn_context)
	Total   *Tokens  `json:"total,omitempty"` // Codex: the session's last total_token_usage, as counted
	// Limits are Codex's usage windows as its last token_count said.
	Limits  Limits `json:"limits,omitempty"`
	Days    Days   `json:"days"`
	Skipped int    `json:"skipped,omitempty"` // lines that did not parse
	// Rejected counts the entries skipped for impossible token counts
	// (negative, or beyond maxCount); Why says what the last one held.
	Rejected int    `json:"rejected,omitempty"`
	Why      string `json:"rejected_why,omitempty"`
	Modified int64  `json:"modified,omitempty"`
	// mark is OpenCode's database as it was when last asked (not kept: a
	// new monitor asks once).
	mark string
}

// ReadResult says what one read of a file did.
type ReadResult struct {
	Bytes     int64 // bytes consumed
	Restarted bool  // the file was another or shorter: read from its start
	More      bool  // the budget ran out before the end of the file
}

// Read reads what was appended to the file at path since fs.Offset, at
// most budget bytes of whole lines (a line longer than the budget is read
// whole when it is the first), and counts the usage it finds into fs. A
// missing file is an error wrapping fs.ErrNotExist.
func (fs *FileState) Read(path string, budget int64, now time.Time) (ReadResult, error) {
	var res ReadResult
	// A stat first: a file that did not change costs no open, and only a
	// regular file is opened (a FIFO named as a transcript would block).
	pre, err := os.Stat(path)
	if err != nil {
		return res, fmt.Errorf("read usage from %s: %w", path, err)
	}
	if !pre.Mode().IsRegular() {
		return res, fmt.Errorf("read usage from %s: %w", path, errNotRegular)
	}
	if fs.Days.damaged() {
		// Counted by an owt that let impossible counts in: read again.
		*fs = FileState{Format: fs.Format}
	}
	if dev, ino := fileID(pre); dev == fs.Dev && ino == fs.Ino && pre.Size() == fs.Offset && fs.Days != nil {
		return res, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return res, fmt.Errorf("read usage from %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return res, fmt.Errorf("read usage from %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return res, fmt.Errorf("read usage from %s: %w", path, errNotRegular)
	}
	dev, ino := fileID(info)
	if dev != fs.Dev || ino != fs.Ino || info.Size() < fs.Offset {
		format := fs.Format
		*fs = FileState{Format: format, Dev: dev, Ino: ino}
		res.Restarted = true
	}
	fs.Modified = info.ModTime().UnixNano()
	if fs.Days == nil {
		fs.Days = Days{}
	}
	if info.Size() == fs.Offset {
		return res, nil
	}
	if _, err := f.Seek(fs.Offset, io.SeekStart); err != nil {
		return res, fmt.Errorf("read usage from %s: %w", path, err)
	}
	r := bufio.NewReaderSize(io.LimitReader(f, info.Size()-fs.Offset), 64<<10)
	for res.Bytes < budget {
		line, long, err := readLine(r)
		if errors.Is(err, io.EOF) {
			break // an unfinished last line waits for its newline
		}
		if errors.Is(err, errLong) {
			fs.Offset += long
			res.Bytes += long
			fs.Skipped++
			continue
		}
		if err != nil {
			return res, fmt.Errorf("read usage from %s: %w", path, err)
		}
		fs.Offset += int64(len(line))
		res.Bytes += int64(len(line))
		if !fs.line(line, now) {
			fs.Skipped++
		}
	}
	res.More = fs.Offset < info.Size() && res.Bytes >= budget
	return res, nil
}

var errLong = errors.New("line too long")

// errNotRegular: the path is no session file (a folder, /dev/null, a
// FIFO); nothing is read, and nobody is told.
var errNotRegular = errors.New("not a regular file")

// readLine returns the next whole line, newline included. An unfinished
// line is io.EOF (and not consumed from the file's point of view: the
// caller does not move its offset) — unless it is longer than maxLine
// already: then, finished or not, it is consumed and returned as errLong
// with its length (what is appended to it later reads as a line that
// does not parse), so no tick reads it again.
func readLine(r *bufio.Reader) ([]byte, int64, error) {
	var buf []byte
	skipped := 0
	for {
		chunk, err := r.ReadSlice('\n')
		if skipped > 0 || len(buf)+len(chunk) > maxLine {
			skipped += len(buf) + len(chunk) // what was buffered was read too
			buf = nil
		} else {
			buf = append(buf, chunk...)
		}
		switch {
		case err == nil && skipped > 0:
			return nil, int64(skipped), errLong
		case err == nil:
			return buf, 0, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && skipped > 0:
			return nil, int64(skipped), errLong
		default:
			return nil, 0, err
		}
	}
}

// line counts one line; false when it did not parse (skipped).
func (fs *FileState) line(line []byte, now time.Time) bool {
	switch fs.Format {
	case FormatClaude:
		return fs.claudeLine(line, now)
	case FormatCodex:
		return fs.codexLine(line, now)
	case FormatGemini:
		return fs.geminiLine(line, now)
	}
	return true
}

// reject skips an entry whose counts are impossible, and says why.
func (fs *FileState) reject(format string, args ...any) {
	fs.Rejected++
	fs.Why = fmt.Sprintf(format, args...)
}

// count counts t for the message id: once, or by the difference when id
// is the newest message counted and grew.
func (fs *FileState) count(id, day, model string, t Tokens) {
	if id != "" && len(fs.Seen) > 0 && fs.Seen[len(fs.Seen)-1] == id {
		if d := t.Sub(fs.Last); !d.Zero() && d.Input >= 0 && d.Output >= 0 && d.CacheWrite >= 0 && d.CacheRead >= 0 {
			fs.Days.add(fs.LastDay, fs.LastMod, d)
			fs.Last = t
		}
		return
	}
	if id != "" {
		for _, s := range fs.Seen {
			if s == id {
				return
			}
		}
		fs.Seen = append(fs.Seen, id)
		if len(fs.Seen) > seenKept {
			fs.Seen = fs.Seen[len(fs.Seen)-seenKept:]
		}
	}
	fs.Days.add(day, model, t)
	fs.Last, fs.LastDay, fs.LastMod = t, day, model
}

// dayOf is the local day of an RFC 3339 time, or of now.
func dayOf(ts string, now time.Time) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.Local().Format(time.DateOnly)
	}
	return now.Local().Format(time.DateOnly)
}

// claudeLine reads one line of a Claude Code transcript
// (~/.claude/projects/<cwd, non-alphanumerics as ->/<session-id>.jsonl,
// and its subagents under <session-id>/subagents/agent-<id>.jsonl, as
// Claude Code 2.1.332's bundle builds those paths). An assistant turn is
//
//	{"type":"assistant","timestamp":"…","requestId":"req_…","message":{"id":"msg_…",
//	 "model":"claude-…","usage":{"input_tokens":N,"cache_creation_input_tokens":N,
//	 "cache_read_input_tokens":N,"output_tokens":N,…},…},…}
//
// written once per content block, each line with the message's usage.
func (fs *FileState) claudeLine(line []byte, now time.Time) bool {
	if !bytes.Contains(line, []byte(`"usage"`)) {
		return true
	}
	var l struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		RequestID string `json:"requestId"`
		Message   struct {
			ID    string `json:"id"`
			Model string `json:"model"`
			Usage *struct {
				Input      int64 `json:"input_tokens"`
				Output     int64 `json:"output_tokens"`
				CacheWrite int64 `json:"cache_creation_input_tokens"`
				CacheRead  int64 `json:"cache_read_input_tokens"`
			} `json:"usage"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return false
	}
	u := l.Message.Usage
	if l.Type != "assistant" || u == nil {
		return true
	}
	t := Tokens{Input: u.Input, Output: u.Output, CacheWrite: u.CacheWrite, CacheRead: u.CacheRead}
	if t.Zero() || l.Message.Model == "<synthetic>" {
		return true // an error message Claude Code made up: no request
	}
	if !t.sane() {
		fs.reject("message %s: %+v", l.Message.ID, t)
		return true
	}
	id := l.Message.ID
	if id != "" && l.RequestID != "" {
		id += ":" + l.RequestID
	}
	fs.count(id, dayOf(l.Timestamp, now), l.Message.Model, t)
	return true
}

// codexLine reads one line of a Codex rollout file
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl; field names as in
// codex 0.169.0's binary):
//
//	{"timestamp":"…","type":"session_meta","payload":{"id":"…","cwd":"/path",…}}
//	{"timestamp":"…","type":"turn_context","payload":{"cwd":"…","model":"gpt-…",…}}
//	{"timestamp":"…","type":"event_msg","payload":{"type":"token_count","info":{
//	  "total_token_usage":{"input_tokens":N,"cached_input_tokens":N,"output_tokens":N,
//	  "reasoning_output_tokens":N,"total_tokens":N},"last_token_usage":{…},…},…}}
//
// total_token_usage is the session's running total: what it grew by since
// the last one is counted. OpenAI's input_tokens include the cached ones,
// and output_tokens the reasoning.
func (fs *FileState) codexLine(line []byte, now time.Time) bool {
	if !bytes.Contains(line, []byte(`"token_count"`)) && !bytes.Contains(line, []byte(`"turn_context"`)) {
		return true
	}
	var l struct {
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Payload   struct {
			Type  string `json:"type"`
			Model string `json:"model"`
			Info  *struct {
				Total *struct {
					Input  int64 `json:"input_tokens"`
					Cached int64 `json:"cached_input_tokens"`
					Output int64 `json:"output_tokens"`
				} `json:"total_token_usage"`
			} `json:"info"`
			RateLimits json.RawMessage `json:"rate_limits"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return false
	}
	switch {
	case l.Type == "turn_context":
		if l.Payload.Model != "" {
			fs.Model = l.Payload.Model
		}
	case l.Type == "event_msg" && l.Payload.Type == "token_count":
		if at, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
			if ls := codexLimits(l.Payload.RateLimits, at); len(ls) > 0 {
				fs.Limits = ls
			}
		}
		if l.Payload.Info == nil || l.Payload.Info.Total == nil {
			return true // rate limits only
		}
		u := l.Payload.Info.Total
		total := Tokens{Input: u.Input - u.Cached, Output: u.Output, CacheRead: u.Cached}
		if !saneCounts(u.Input, u.Cached, u.Output) || !total.sane() {
			// Not the running total: the next sound one is measured
			// against the last sound one.
			fs.reject("token_count at %s: input %d, cached %d, output %d", l.Timestamp, u.Input, u.Cached, u.Output)
			return true
		}
		grew := total
		if fs.Total != nil {
			grew = total.Sub(*fs.Total)
			if grew.Input < 0 || grew.Output < 0 || grew.CacheRead < 0 {
				grew = total // the running total started again
			}
		}
		fs.Total = &total
		if !grew.Zero() {
			fs.Days.add(dayOf(l.Timestamp, now), orUnknown(fs.Model), grew)
		}
	}
	return true
}

// geminiLine reads one line of a Gemini CLI chat file
// (~/.gemini/tmp/<project>/chats/session-*.jsonl, gemini-cli 0.61.0's
// ChatRecordingService): a message record
//
//	{"id":"…","timestamp":"…","type":"gemini","content":…,"model":"gemini-…",
//	 "tokens":{"input":N,"output":N,"cached":N,"thoughts":N,"tool":N,"total":N}}
//
// appended again whenever the message changes. input is Gemini's
// promptTokenCount, which includes the cached tokens; thoughts are billed
// as output; tool (toolUsePromptTokenCount) as input.
func (fs *FileState) geminiLine(line []byte, now time.Time) bool {
	if !bytes.Contains(line, []byte(`"tokens"`)) {
		return true
	}
	var l struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Model     string `json:"model"`
		Tokens    *struct {
			Input    int64 `json:"input"`
			Output   int64 `json:"output"`
			Cached   int64 `json:"cached"`
			Thoughts int64 `json:"thoughts"`
			Tool     int64 `json:"tool"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return false
	}
	if l.Type != "gemini" || l.Tokens == nil {
		return true
	}
	u := l.Tokens
	t := Tokens{Input: u.Input - u.Cached + u.Tool, Output: u.Output + u.Thoughts, CacheRead: u.Cached}
	if !saneCounts(u.Input, u.Output, u.Cached, u.Thoughts, u.Tool) || !t.sane() {
		fs.reject("message %s: input %d, cached %d, output %d, thoughts %d, tool %d", l.ID, u.Input, u.Cached, u.Output, u.Thoughts, u.Tool)
		return true
	}
	if t.Zero() {
		return true
	}
	fs.count(l.ID, dayOf(l.Timestamp, now), orUnknown(l.Model), t)
	return true
}

func orUnknown(model string) string {
	if model == "" {
		return "unknown"
	}
	return model
}

// fileID is the device and inode of a file.
func fileID(info os.FileInfo) (dev, ino uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino //nolint:unconvert // Dev is not uint64 everywhere
	}
	return 0, 0
}

func sortStrings(s []string) { sort.Strings(s) }
