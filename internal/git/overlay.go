package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HeadFile returns the content of the file at rel (relative to the top
// level of the worktree at dir, slash-separated) as committed in HEAD;
// found is false when HEAD has no such file (or no HEAD yet).
func HeadFile(dir, rel string) (data []byte, found bool, err error) {
	if strings.ContainsAny(rel, "\n\x00") {
		return nil, false, fmt.Errorf("git cat-file HEAD:%q: a path with a line break", rel)
	}
	out, err := runWith(dir, nil, []byte("HEAD:"+rel+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file HEAD:%s in %s: %w", rel, dir, err)
	}
	// "<oid> <type> <size>\n<content>\n", or "<name> missing\n".
	header, body, _ := bytes.Cut(out, []byte("\n"))
	f := strings.Fields(string(header))
	if len(f) == 2 && f[1] == "missing" {
		return nil, false, nil
	}
	if len(f) != 3 {
		return nil, false, fmt.Errorf("git cat-file HEAD:%s in %s: unexpected answer %q", rel, dir, header)
	}
	if f[1] != "blob" {
		return nil, false, fmt.Errorf("HEAD:%s in %s is a %s, not a file", rel, dir, f[1])
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size > len(body) {
		return nil, false, fmt.Errorf("git cat-file HEAD:%s in %s: unexpected answer %q", rel, dir, header)
	}
	return body[:size], true, nil
}

// SkipWorktreeFiles returns those of paths that are marked skip-worktree
// in the index of the worktree at dir: git status does not report their
// changes and git add refuses them.
func SkipWorktreeFiles(dir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"--literal-pathspecs", "ls-files", "-v", "-z"}
	if len(paths) <= 200 {
		args = append(append(args, "--"), paths...)
	} // else list the whole index: many pathspecs match slowly
	out, err := run(dir, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-files -v in %s: %w", dir, err)
	}
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
	}
	var skip []string
	for _, e := range splitNUL(out) {
		// "<tag> <path>": S (or s, when also assume-unchanged) is skip-worktree.
		if len(e) > 2 && (e[0] == 'S' || e[0] == 's') && e[1] == ' ' && want[e[2:]] {
			skip = append(skip, e[2:])
			want[e[2:]] = false
		}
	}
	return skip, nil
}

// Overlay is a file committed with given content rather than what the
// worktree holds (owt's hook settings: the worktree's copy carries owt's
// hooks, the commit must not). Delete commits the file's removal.
type Overlay struct {
	Path   string
	Data   []byte
	Delete bool
}

// SnapshotWith is Snapshot with the files of over taken from over instead
// of the worktree. paths may name them too; they are not read from disk.
func SnapshotWith(dir string, paths []string, over []Overlay) (string, error) {
	if len(over) == 0 {
		return Snapshot(dir, paths)
	}
	head, err := runLine(dir, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return "", fmt.Errorf("git rev-parse HEAD in %s: %w", dir, err)
	}
	r := Repo{Root: dir}
	tree, err := r.withTempIndex(func(env []string) (string, error) {
		if _, err := runWith(dir, env, nil, "read-tree", head); err != nil {
			return "", fmt.Errorf("git read-tree HEAD in %s: %w", dir, err)
		}
		if rest := withoutOverlays(paths, over); len(rest) > 0 {
			if _, err := runWith(dir, env, pathspecStdin(rest), "--literal-pathspecs", "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
				return "", fmt.Errorf("git add (snapshot) in %s: %w", dir, err)
			}
		}
		before, err := indexEntries(dir, env, over)
		if err != nil {
			return "", err
		}
		info, err := overlayIndexInfo(dir, over, before)
		if err != nil {
			return "", err
		}
		if _, err := runWith(dir, env, info, "update-index", "-z", "--index-info"); err != nil {
			return "", fmt.Errorf("git update-index (snapshot) in %s: %w", dir, err)
		}
		out, err := runWith(dir, env, nil, "write-tree")
		if err != nil {
			return "", fmt.Errorf("git write-tree in %s: %w", dir, err)
		}
		return strings.TrimSpace(string(out)), nil
	})
	if err != nil {
		return "", err
	}
	return r.CommitTree(tree, []string{head}, "owt snapshot of uncommitted work")
}

// CommitPathsWith is CommitPaths with the files of over committed with
// the content over gives (or removed), whatever the worktree holds. Their
// worktree copies are left as they are and, since they now differ from
// the index on purpose, marked skip-worktree so git status keeps quiet
// about them. When the commit fails their index entries are put back.
func CommitPathsWith(dir string, paths []string, over []Overlay, message string) (string, error) {
	if len(over) == 0 {
		return CommitPaths(dir, paths, message)
	}
	before, err := indexEntries(dir, nil, over)
	if err != nil {
		return "", err
	}
	info, err := overlayIndexInfo(dir, over, before)
	if err != nil {
		return "", err
	}
	if rest := withoutOverlays(paths, over); len(rest) > 0 {
		if _, err := runWith(dir, nil, pathspecStdin(rest), "--literal-pathspecs", "add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return "", fmt.Errorf("git add in %s: %w", dir, err)
		}
	}
	if _, err := runWith(dir, nil, info, "update-index", "-z", "--index-info"); err != nil {
		return "", errors.Join(fmt.Errorf("git update-index in %s: %w", dir, err), restoreEntries(dir, over, before))
	}
	if err := commitIndex(dir, message); err != nil {
		return "", errors.Join(err, restoreEntries(dir, over, before))
	}
	if err := hideOverlays(dir, over); err != nil {
		return "", err
	}
	return runLine(dir, "rev-parse", "HEAD")
}

// commitIndex commits the index of the worktree at dir with message, as
// CommitPaths does (the user's commit hooks run).
func commitIndex(dir, message string) error {
	msg, err := os.CreateTemp("", "owt-commit-msg-")
	if err != nil {
		return err
	}
	defer os.Remove(msg.Name())
	_, werr := msg.WriteString(message)
	if cerr := msg.Close(); werr != nil || cerr != nil {
		return fmt.Errorf("write commit message: %w", errors.Join(werr, cerr))
	}
	if _, err := runWith(dir, editorEnv, nil, "commit", "--quiet", "--cleanup=whitespace", "-F", msg.Name()); err != nil {
		return fmt.Errorf("git commit in %s: %w", dir, err)
	}
	return nil
}

// indexEntry is a stage-0 index entry: "<mode> <oid>".
type indexEntry struct{ mode, oid string }

// indexEntries reads the index entries of the overlay paths (missing ones
// are not in the map). env selects a temporary index.
func indexEntries(dir string, env []string, over []Overlay) (map[string]indexEntry, error) {
	args := []string{"--literal-pathspecs", "ls-files", "-s", "-z", "--"}
	for _, o := range over {
		args = append(args, o.Path)
	}
	out, err := runWith(dir, env, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-files -s in %s: %w", dir, err)
	}
	m := map[string]indexEntry{}
	for _, e := range splitNUL(out) {
		// "<mode> <oid> <stage>\t<path>"
		meta, path, ok := strings.Cut(e, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-files -s in %s: unexpected entry %q", dir, e)
		}
		if f[2] == "0" {
			m[path] = indexEntry{mode: f[0], oid: f[1]}
		}
	}
	return m, nil
}

// overlayIndexInfo writes the overlay contents as blobs and returns the
// `git update-index -z --index-info` input that puts them in the index
// (keeping each file's mode), or takes them out.
func overlayIndexInfo(dir string, over []Overlay, have map[string]indexEntry) ([]byte, error) {
	var b bytes.Buffer
	for _, o := range over {
		if strings.ContainsAny(o.Path, "\x00") || o.Path == "" {
			return nil, fmt.Errorf("overlay path %q: invalid", o.Path)
		}
		if o.Delete {
			b.WriteString("0 " + strings.Repeat("0", 40) + "\t" + o.Path + "\x00")
			continue
		}
		out, err := runWith(dir, nil, o.Data, "hash-object", "-w", "--stdin", "--path="+o.Path)
		if err != nil {
			return nil, fmt.Errorf("git hash-object %s in %s: %w", o.Path, dir, err)
		}
		mode := "100644"
		if e, ok := have[o.Path]; ok && e.mode != "160000" && e.mode != "120000" {
			mode = e.mode
		}
		b.WriteString(mode + " " + strings.TrimSpace(string(out)) + "\t" + o.Path + "\x00")
	}
	return b.Bytes(), nil
}

// restoreEntries puts the overlay paths' index entries back as they were.
func restoreEntries(dir string, over []Overlay, before map[string]indexEntry) error {
	var b bytes.Buffer
	for _, o := range over {
		if e, ok := before[o.Path]; ok {
			b.WriteString(e.mode + " " + e.oid + "\t" + o.Path + "\x00")
		} else {
			b.WriteString("0 " + strings.Repeat("0", 40) + "\t" + o.Path + "\x00")
		}
	}
	if _, err := runWith(dir, nil, b.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		return fmt.Errorf("put back the index entries in %s: %w", dir, err)
	}
	return hideOverlays(dir, over)
}

// hideOverlays marks skip-worktree the overlay files that are in the
// worktree and in the index.
func hideOverlays(dir string, over []Overlay) error {
	var paths []string
	for _, o := range over {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(o.Path))); err == nil {
			paths = append(paths, o.Path)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	have, err := indexEntries(dir, nil, over)
	if err != nil {
		return err
	}
	var in []string
	for _, p := range paths {
		if _, ok := have[p]; ok {
			in = append(in, p)
		}
	}
	if len(in) == 0 {
		return nil
	}
	if _, err := runWith(dir, nil, nil, append([]string{"update-index", "--skip-worktree", "--"}, in...)...); err != nil {
		return fmt.Errorf("git update-index --skip-worktree in %s: %w", dir, err)
	}
	return nil
}

// withoutOverlays is paths minus the overlay paths.
func withoutOverlays(paths []string, over []Overlay) []string {
	skip := map[string]bool{}
	for _, o := range over {
		skip[o.Path] = true
	}
	var out []string
	for _, p := range paths {
		if !skip[p] {
			out = append(out, p)
		}
	}
	return out
}
