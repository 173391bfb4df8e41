package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"

	"github.com/BurntSushi/toml"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
)

// Problems in a plan file are config.Problems: each names the file, the
// key and what is wrong, and every one is reported at once.

// MaxPlanSize bounds a plan file: validation and waves are quadratic in
// the dependencies, and a run of thousands of agents is not one to start
// by accident.
const MaxPlanSize = 1 << 20

// ParseFile reads and validates the plan file at path. A file that cannot
// be read is a problem like any other: the user gave a bad FILE.
func ParseFile(path string) (*Plan, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxPlanSize {
		return nil, config.Problems{{File: path, Msg: fmt.Sprintf("the plan is %d bytes; owt reads plans of up to %d (a few hundred tasks)", fi.Size(), MaxPlanSize)}}
	}
	data, err := readBounded(path, MaxPlanSize)
	if errors.Is(err, errTooLarge) {
		return nil, config.Problems{{File: path, Msg: fmt.Sprintf("the plan is more than %d bytes; owt reads plans of up to that (a few hundred tasks)", MaxPlanSize)}}
	}
	if err != nil {
		msg := err.Error()
		var pe *os.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, config.Problems{{File: path, Msg: "cannot read the plan: " + msg}}
	}
	return Parse(path, data)
}

// MaxTaskText bounds one task's text: it reaches the agent as one argv
// element, and Linux refuses one over 128 KiB (with room for the brief and
// the instructions owt adds).
const MaxTaskText = 64 << 10

var errTooLarge = errors.New("too large")

// readBounded reads at most limit bytes of path (a FIFO or /dev/zero
// included), errTooLarge when there is more.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// Parse decodes and validates a plan written in either format: owt's
// ([run], [run.retry], [[task]]) or the seed's tasks.toml ([batch],
// [[tasks]]). file names the plan in problems. The error, when there is
// one, is config.Problems listing every problem found.
func Parse(file string, data []byte) (*Plan, error) {
	var doc map[string]any
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, config.Problems{syntaxProblem(file, err)}
	}
	d := &decoder{file: file, order: map[string]int{}}
	for i, k := range md.Keys() {
		if _, seen := d.order[k.String()]; !seen {
			d.order[k.String()] = i
		}
	}
	p := d.plan(doc)
	if len(d.problems) > 0 {
		return nil, d.problems
	}
	return p, nil
}

// syntaxProblem is a file that is not TOML: file:line and the last key read.
func syntaxProblem(file string, err error) config.Problem {
	var perr toml.ParseError
	if errors.As(err, &perr) {
		return config.Problem{File: fmt.Sprintf("%s:%d", file, perr.Position.Line), Key: perr.LastKey, Msg: perr.Message}
	}
	return config.Problem{File: file, Msg: err.Error()}
}

// decoder walks the decoded TOML by hand, so that every unknown key and
// every value of the wrong type is reported, not only the first.
type decoder struct {
	file     string
	order    map[string]int // dotted key → its first place in the file
	problems config.Problems
}

func (d *decoder) add(key, format string, args ...any) {
	d.problems = append(d.problems, config.Problem{File: d.file, Key: key, Msg: fmt.Sprintf(format, args...)})
}

func defaults() *Plan {
	return &Plan{
		Format:        FormatRun,
		MaxConcurrent: DefaultMaxConcurrent,
		Timeout:       Duration(DefaultTimeout),
		Settle:        Duration(DefaultSettle),
		Stall:         Duration(DefaultStall),
		Retry: Retry{
			MaxAttempts: DefaultMaxAttempts,
			Backoff:     Duration(DefaultBackoff),
			BackoffMax:  Duration(DefaultBackoffMax),
		},
	}
}

// plan decodes the top level: one format or the other, never both.
func (d *decoder) plan(doc map[string]any) *Plan {
	p := defaults()
	p.File = d.file
	native := has(doc, "run") || has(doc, "task")
	seed := has(doc, "batch") || has(doc, "tasks")
	if native && seed {
		d.add("", "mixes owt's [run]/[[task]] with the seed's [batch]/[[tasks]]: use one format")
		return p
	}
	if seed {
		p.Format = FormatBatch
	}
	var raw []rawTask
	d.fields(doc, "", map[string]func(string, any){
		"run":   func(k string, v any) { d.run(p, k, v) },
		"task":  func(k string, v any) { raw = d.tasks(k, v, "task") },
		"batch": func(k string, v any) { d.batch(p, k, v) },
		"tasks": func(k string, v any) { raw = d.tasks(k, v, "description") },
	})
	taskKey := "task"
	if seed {
		taskKey = "tasks"
	}
	if !has(doc, taskKey) {
		d.add(taskKey, "the plan has no tasks: add a [[%s]] with an id and its text", taskKey)
	}
	for _, r := range raw {
		p.Tasks = append(p.Tasks, r.task)
	}
	d.graph(raw)
	return p
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// run decodes [run] and its [run.retry].
func (d *decoder) run(p *Plan, key string, v any) {
	t, ok := d.table(key, v)
	if !ok {
		return
	}
	d.fields(t, key, map[string]func(string, any){
		"base":           func(k string, v any) { d.branch(k, v, &p.Base) },
		"into":           func(k string, v any) { d.branch(k, v, &p.Into) },
		"max_concurrent": func(k string, v any) { d.integer(k, v, 1, &p.MaxConcurrent) },
		"tool":           func(k string, v any) { d.word(k, v, &p.Tool) },
		"timeout":        func(k string, v any) { d.duration(k, v, time.Second, &p.Timeout) },
		"settle":         func(k string, v any) { d.duration(k, v, time.Second, &p.Settle) },
		"stall":          func(k string, v any) { d.duration(k, v, 0, &p.Stall) },
		"on_timeout":     func(k string, v any) { d.oneOf(k, v, []string{OnTimeoutNeedsYou, OnTimeoutRetry}, &p.OnTimeout) },
		"on_conflict":    func(k string, v any) { d.oneOf(k, v, []string{"needs_you", "resolve"}, &p.OnConflict) },
		"checks":         func(k string, v any) { p.Checks, _ = d.argvs(k, v) },
		"retry":          func(k string, v any) { d.retry(&p.Retry, k, v) },
		"pr":             func(k string, v any) { d.boolean(k, v, &p.PR) },
		"budget_tokens":  func(k string, v any) { d.tokens(k, v, &p.BudgetTokens) },
		"review":         func(k string, v any) { d.boolean(k, v, &p.Review) },
		"host":           func(k string, v any) { d.word(k, v, &p.Host) },
		"labels":         func(k string, v any) { d.labels(k, v, &p.Labels) },
	})
	if p.Host != "" && len(p.Labels) > 0 {
		d.add(key+".labels", "give host or labels, not both: a named host is used whatever its labels")
	}
	if p.PR && p.Into != "" {
		d.add(key+".pr", "needs a run without into: each done task's branch gets its own pull request (open one for %s yourself with gh pr create)", p.Into)
	}
}

func (d *decoder) retry(r *Retry, key string, v any) {
	t, ok := d.table(key, v)
	if !ok {
		return
	}
	d.fields(t, key, map[string]func(string, any){
		"max_attempts": func(k string, v any) { d.integer(k, v, 1, &r.MaxAttempts) },
		"backoff":      func(k string, v any) { d.duration(k, v, 0, &r.Backoff) },
		"backoff_max":  func(k string, v any) { d.duration(k, v, 0, &r.BackoffMax) },
	})
	if r.BackoffMax < r.Backoff {
		d.add(key+".backoff_max", "must be at least backoff (%s)", time.Duration(r.Backoff))
	}
}

// batch decodes the seed's [batch]. Its auto_ship shipped each finished
// task into the base branch; owt reads it as landing done work in the base
// itself (into = base), through owt's own merge path, in dependency order,
// and only on evidence that the task is done.
func (d *decoder) batch(p *Plan, key string, v any) {
	t, ok := d.table(key, v)
	if !ok {
		return
	}
	d.fields(t, key, map[string]func(string, any){
		"max_concurrent": func(k string, v any) { d.integer(k, v, 1, &p.MaxConcurrent) },
		"auto_ship":      func(k string, v any) { d.boolean(k, v, &p.IntoBase) },
	})
}

// rawTask is a task as decoded, with the key its problems are named by.
type rawTask struct {
	task  Task
	label string // task[models], or task[#2] while it has no usable id
	index int
	hasID bool
}

// tasks decodes [[task]] (or the seed's [[tasks]], whose text key is
// "description").
func (d *decoder) tasks(key string, v any, textKey string) []rawTask {
	list, ok := v.([]map[string]any)
	if !ok {
		d.add(key, "must be an array of tables ([[%s]]), not %s", key, typeWord(v))
		return nil
	}
	out := make([]rawTask, 0, len(list))
	for i, t := range list {
		r := rawTask{index: i + 1, label: fmt.Sprintf("%s[#%d]", key, i+1)}
		if id, ok := t["id"].(string); ok && ValidName(id) {
			r.label = fmt.Sprintf("%s[%s]", key, id)
		}
		fields := map[string]func(string, any){
			"id":         func(k string, v any) { r.hasID = d.str(k, v, &r.task.ID) },
			textKey:      func(k string, v any) { d.str(k, v, &r.task.Task) },
			"depends_on": func(k string, v any) { d.strs(k, v, &r.task.DependsOn) },
		}
		if textKey == "task" { // the seed's [[tasks]] had only these three keys
			fields["tool"] = func(k string, v any) { d.word(k, v, &r.task.Tool) }
			fields["checks"] = func(k string, v any) {
				if c, ok := d.argvs(k, v); ok {
					r.task.Checks = &c
				}
			}
			fields["timeout"] = func(k string, v any) { d.duration(k, v, time.Second, &r.task.Timeout) }
			fields["allow_empty"] = func(k string, v any) { d.boolean(k, v, &r.task.AllowEmpty) }
			fields["review"] = func(k string, v any) {
				if b, ok := v.(bool); ok {
					r.task.Review = &b
				} else {
					d.boolean(k, v, new(bool)) // says what is wrong
				}
			}
			fields["template"] = func(k string, v any) { d.word(k, v, &r.task.Template) }
			fields["issue"] = func(k string, v any) { d.issue(k, v, &r.task.Issue) }
			fields["host"] = func(k string, v any) { d.word(k, v, &r.task.Host) }
			fields["labels"] = func(k string, v any) { d.labels(k, v, &r.task.Labels) }
		}
		d.fieldsAt(t, r.label, key, fields)
		if !has(t, "id") {
			d.add(r.label+".id", "missing: every task needs an id")
		}
		if has(t, "host") && has(t, "labels") {
			d.add(r.label+".labels", "give host or labels, not both: a named host is used whatever its labels")
		}
		if has(t, "issue") && has(t, textKey) {
			d.add(r.label+"."+textKey, "give either the task's text or its issue, not both")
		} else if has(t, "issue") {
			// the issue's text is the task, read when the task starts
		} else if !has(t, textKey) {
			d.add(r.label+"."+textKey, "missing: every task needs its text")
		} else if strings.TrimSpace(r.task.Task) == "" {
			d.add(r.label+"."+textKey, "is empty")
		} else if len(r.task.Task) > MaxTaskText {
			d.add(r.label+"."+textKey, "is %d bytes; at most %d (the agent takes its task as one argument)", len(r.task.Task), MaxTaskText)
		} else if i := strings.IndexFunc(r.task.Task, untrusted.IsControl); i >= 0 {
			d.add(r.label+"."+textKey, "has a control character (%U) at byte %d; an agent's task is text, with tabs and line breaks", []rune(r.task.Task[i:])[0], i)
		}
		out = append(out, r)
	}
	return out
}

// fields decodes each key of table t (at path) with its setter; a key
// without one is unknown. Keys go in file order, so problems do too.
func (d *decoder) fields(t map[string]any, path string, set map[string]func(string, any)) {
	d.fieldsAt(t, path, path, set)
}

// fieldsAt is fields for a table named label in problems and orderPath in
// the file's key order (they differ for an array's tables).
func (d *decoder) fieldsAt(t map[string]any, label, orderPath string, set map[string]func(string, any)) {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	place := func(k string) int { return d.order[join(orderPath, k)] }
	sort.Slice(keys, func(i, j int) bool {
		if place(keys[i]) != place(keys[j]) {
			return place(keys[i]) < place(keys[j])
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		f, ok := set[k]
		if !ok {
			d.add(join(label, k), "unknown key")
			continue
		}
		f(join(label, k), t[k])
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func (d *decoder) table(key string, v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		d.add(key, "must be a table ([%s]), not %s", key, typeWord(v))
	}
	return t, ok
}

func (d *decoder) str(key string, v any, dst *string) bool {
	s, ok := v.(string)
	if !ok {
		d.add(key, "must be a string, not %s", typeWord(v))
		return false
	}
	*dst = s
	return true
}

// word is a string that names something (a tool): not empty, no spaces.
func (d *decoder) word(key string, v any, dst *string) {
	if d.str(key, v, dst) && (*dst == "" || strings.ContainsAny(*dst, " \t\n")) {
		d.add(key, "must be a name, not %q", *dst)
	}
}

// labels is a non-empty list of names (a host's labels).
func (d *decoder) labels(key string, v any, dst *[]string) {
	var l []string
	d.strs(key, v, &l)
	if _, ok := v.([]any); ok && len(l) == 0 {
		d.add(key, "is empty: name at least one label, or leave labels out")
	}
	for _, s := range l {
		if s == "" || strings.ContainsAny(s, " \t\n,") {
			d.add(key, "must be names, not %q", s)
			return
		}
	}
	*dst = l
}

// branch is a branch name. Whether it exists is for registration to check
// (it needs the repository); here only what no branch could be.
func (d *decoder) branch(key string, v any, dst *string) {
	if !d.str(key, v, dst) {
		return
	}
	b := *dst
	switch {
	case strings.HasPrefix(b, "refs/"):
		d.add(key, "%q is not a branch name: give the branch's name (%s), not its ref", b, strings.TrimPrefix(strings.TrimPrefix(b, "refs/"), "heads/"))
	case b == "" || strings.HasPrefix(b, "-") || strings.ContainsAny(b, " \t\n~^:?*[\\") || strings.Contains(b, "..") || strings.Contains(b, "@{"):
		d.add(key, "%q is not a branch name", b)
	case !git.ValidBranchName(b):
		d.add(key, "%q is not a branch name (git refuses it)", b) // git's own rules: a trailing /, .lock, …
	}
}

// oneOf is a string that must be one of choices.
func (d *decoder) oneOf(key string, v any, choices []string, dst *string) {
	if !d.str(key, v, dst) {
		return
	}
	for _, c := range choices {
		if *dst == c {
			return
		}
	}
	d.add(key, "must be one of %s, not %q", strings.Join(choices, ", "), *dst)
}

func (d *decoder) integer(key string, v any, min int, dst *int) {
	n, ok := v.(int64)
	if !ok {
		d.add(key, "must be an integer, not %s", typeWord(v))
		return
	}
	if n < int64(min) || n > 1000 {
		d.add(key, "must be between %d and 1000, not %d", min, n)
		return
	}
	*dst = int(n)
}

// tokens is a token count: 1 or more.
func (d *decoder) tokens(key string, v any, dst *int64) {
	n, ok := v.(int64)
	if !ok {
		d.add(key, "must be an integer (a number of tokens), not %s", typeWord(v))
		return
	}
	if n < 1 {
		d.add(key, "must be 1 or more, not %d", n)
		return
	}
	*dst = n
}

// issue is a GitHub issue's number: 1 or more.
func (d *decoder) issue(key string, v any, dst *int) {
	n, ok := v.(int64)
	if !ok || n < 1 || n > 1<<31 {
		d.add(key, "must be an issue number (1 or more), not %v", v)
		return
	}
	*dst = int(n)
}

func (d *decoder) boolean(key string, v any, dst *bool) {
	b, ok := v.(bool)
	if !ok {
		d.add(key, "must be true or false, not %s", typeWord(v))
		return
	}
	*dst = b
}

// duration is a string like "45m"; it must be at least min.
func (d *decoder) duration(key string, v any, min time.Duration, dst *Duration) {
	s, ok := v.(string)
	if !ok {
		d.add(key, "must be a duration in quotes (like \"30s\"), not %s", typeWord(v))
		return
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		d.add(key, "%q is not a duration (like \"30s\", \"45m\", \"1h30m\")", s)
		return
	}
	if dur < min {
		d.add(key, "must be at least %s, not %q", min, s)
		return
	}
	*dst = Duration(dur)
}

func (d *decoder) strs(key string, v any, dst *[]string) {
	list, ok := v.([]any)
	if !ok {
		d.add(key, "must be a list of strings, not %s", typeWord(v))
		return
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok {
			d.add(fmt.Sprintf("%s[%d]", key, i+1), "must be a string, not %s", typeWord(e))
			continue
		}
		out = append(out, s)
	}
	*dst = out
}

// argvs is a list of commands, each an argv list run without a shell:
// [["go", "test", "./..."]].
func (d *decoder) argvs(key string, v any) ([][]string, bool) {
	list, ok := v.([]any)
	if !ok {
		d.add(key, "must be a list of argv lists (like [[\"go\", \"test\", \"./...\"]]), not %s", typeWord(v))
		return nil, false
	}
	out := make([][]string, 0, len(list))
	good := true
	for i, e := range list {
		at := fmt.Sprintf("%s[%d]", key, i+1)
		argv, ok := e.([]any)
		if !ok {
			d.add(at, "must be an argv list (like [\"go\", \"test\", \"./...\"]), not %s: checks run without a shell", typeWord(e))
			good = false
			continue
		}
		words := make([]string, 0, len(argv))
		for _, w := range argv {
			s, ok := w.(string)
			if !ok {
				words = nil
				break
			}
			words = append(words, s)
		}
		if len(words) == 0 || strings.TrimSpace(words[0]) == "" {
			d.add(at, "must be a non-empty list of strings whose first names a program")
			good = false
			continue
		}
		out = append(out, words)
	}
	return out, good
}

// typeWord says what a decoded TOML value is, in words.
func typeWord(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "an array"
	case []map[string]any:
		return "an array of tables"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date"
	}
	return fmt.Sprintf("%T", v)
}
