package house

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The repository's Markdown pages are files of the house too: these tests
// read README.md and every page under docs/ and fail on a relative link
// to a page or heading that does not exist, and on a page under docs/
// that no chain of links from the README reaches.

// mdLink matches [text](target) and ![alt](target); the target stops at
// whitespace or ')'.
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// inlineCode matches a code span, whose text is no link.
var inlineCode = regexp.MustCompile("`[^`]*`")

type page struct {
	links   []string // link targets outside code
	anchors map[string]bool
}

// readPage reads one Markdown file's links and the anchors of its headings
// (as GitHub makes them), skipping fenced code blocks.
func readPage(t *testing.T, path string) page {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := false
	var text strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		if strings.HasPrefix(line, "#") {
			h := strings.TrimLeft(line, "#")
			if strings.HasPrefix(h, " ") {
				a := slug(h)
				if n := seen[a]; n > 0 {
					p.anchors[a+"-"+strconv.Itoa(n)] = true
				} else {
					p.anchors[a] = true
				}
				seen[a]++
			}
		}
		text.WriteString(line)
		text.WriteByte('\n')
	}
	// A link's text may run over a line break: match over the whole text.
	for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(text.String(), ""), -1) {
		p.links = append(p.links, m[1])
	}
	return p
}

// slug is the anchor GitHub gives a heading: lower case, letters, digits,
// '-' and '_' kept, spaces made '-', everything else dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownPages lists README.md and every .md file under docs/, as paths
// relative to root with '/' separators.
func markdownPages(t *testing.T, root string) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages)
	return pages
}

// localTarget resolves a link of the page at from to a repository path
// and an anchor; ok is false for a link that leaves the repository (a
// URL, mailto).
func localTarget(from, link string) (path, anchor string, ok bool) {
	if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
		return "", "", false
	}
	path, anchor, _ = strings.Cut(link, "#")
	if path == "" {
		return from, anchor, true
	}
	return filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), path))), anchor, true
}

// TestDocsLinksResolve fails on a relative link, in README.md or a page
// under docs/, to a file that does not exist or to a heading its page
// does not have. Images are left out: the screenshots are made apart
// (make screenshots).
func TestDocsLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	pages := map[string]page{}
	for _, p := range markdownPages(t, root) {
		pages[p] = readPage(t, filepath.Join(root, p))
	}
	for from, p := range pages {
		for _, link := range p.links {
			path, anchor, ok := localTarget(from, link)
			if !ok {
				continue
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".png", ".gif", ".jpg", ".jpeg", ".svg":
				continue
			}
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				t.Errorf("%s links to %s: no such file (%s)", from, link, path)
				continue
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			target, ok := pages[path]
			if !ok {
				target = readPage(t, filepath.Join(root, path))
			}
			if !target.anchors[anchor] {
				t.Errorf("%s links to %s: %s has no heading #%s", from, link, path, anchor)
			}
		}
	}
}

// TestEveryDocsPageIsLinked fails on a page under docs/ that no chain of
// links from README.md reaches: a page nobody can find.
func TestEveryDocsPageIsLinked(t *testing.T) {
	root := moduleRoot(t)
	all := markdownPages(t, root)
	pages := map[string]page{}
	for _, p := range all {
		pages[p] = readPage(t, filepath.Join(root, p))
	}
	reached := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		for _, link := range pages[from].links {
			path, _, ok := localTarget(from, link)
			if !ok || reached[path] {
				continue
			}
			if _, isPage := pages[path]; isPage {
				reached[path] = true
				queue = append(queue, path)
			}
		}
	}
	for _, p := range all {
		if !reached[p] {
			t.Errorf("%s is linked from no page the README leads to: link it from README.md or a page under docs/", p)
		}
	}
}
