package house

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The screenshots are taken apart from the tests (make screenshots,
// docs/images/README.md); these tests hold what they must be: the ones
// the README shows are committed, each image a page shows exists, is a
// PNG and stays small, and the make target that retakes them is there and
// is no part of make test.

// screenshots are the images the README shows, by these names.
var screenshots = []string{"overview", "switch", "create", "control", "statusbar", "merge"}

// maxImage is the most bytes one committed image may take.
const maxImage = 200 << 10

func TestScreenshotsAreCommitted(t *testing.T) {
	root := moduleRoot(t)
	shown := map[string]string{} // image path → a page that shows it
	for _, p := range markdownPages(t, root) {
		for _, link := range readPage(t, filepath.Join(root, p)).links {
			path, _, ok := localTarget(p, link)
			if ok && strings.EqualFold(filepath.Ext(path), ".png") {
				shown[path] = p
			}
		}
	}
	for _, name := range screenshots {
		path := "docs/images/" + name + ".png"
		if _, ok := shown[path]; !ok {
			shown[path] = "the screenshots list"
		}
	}
	for path, page := range shown {
		b, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Errorf("%s shows %s, which is not committed: run make screenshots", page, path)
			continue
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s (shown by %s) is no PNG", path, page)
		}
		if len(b) > maxImage {
			t.Errorf("%s is %d KB, more than %d KB", path, len(b)>>10, maxImage>>10)
		}
	}
}

func TestScreenshotsHaveTheirMakeTarget(t *testing.T) {
	root := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var target, testDeps string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "screenshots:") {
			target = line
		}
		if strings.HasPrefix(line, "test:") {
			testDeps = line
		}
	}
	if target == "" {
		t.Fatal("the Makefile has no screenshots target")
	}
	if strings.Contains(testDeps, "screenshots") {
		t.Errorf("make test depends on the screenshots (%q): they are taken apart", testDeps)
	}
	for _, f := range []string{"internal/tools/screenshots/main.go", "internal/tools/screenshots/go.mod", "docs/images/README.md"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("make screenshots needs %s: %v", f, err)
		}
	}
}
