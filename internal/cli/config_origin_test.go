package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/config"
)

// configWorld is a git repository as the current directory and an empty
// XDG_CONFIG_HOME; user and repo config files are written when not "".
func configWorld(t *testing.T, user, repo string) (userFile, repoFile string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	t.Chdir(dir)
	userFile, repoFile = config.UserFile(), filepath.Join(dir, config.RepoFile)
	for f, text := range map[string]string{userFile: user, repoFile: repo} {
		if text == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return userFile, repoFile
}

// Issue 34, problem 5: with no config file, validate said "config is
// valid" naming no file; now it names the paths it looked at.
func TestConfigValidateNamesTheFilesItRead(t *testing.T) {
	userFile, repoFile := configWorld(t, "", "")
	out, errOut, code := runOwt(t, "", nil, "config", "validate")
	if code != 0 || !strings.Contains(out, "no config file (looked for "+userFile+" and "+repoFile+"); the defaults are valid") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}

	if err := os.WriteFile(repoFile, []byte("[agent]\ntool = \"codex\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runOwt(t, "", nil, "config", "validate")
	if code != 0 || !strings.Contains(out, repoFile+": ok") || !strings.Contains(out, "config is valid (read "+repoFile+"; defaults for the rest)") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// config show --origin ends each value's line with the file it came from,
// or default.
func TestConfigShowOriginNamesTheFileOrDefault(t *testing.T) {
	userFile, repoFile := configWorld(t, "[agent]\ntool = \"codex\"\nauto_approve = true\n", "[agent]\ntool = \"gemini\"\n")
	out, errOut, code := runOwt(t, "", nil, "config", "show", "--origin")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		`tool = "gemini"  # ` + repoFile,
		`auto_approve = true  # ` + userFile,
		`send_timeout = "30s"  # default`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	plain, _, _ := runOwt(t, "", nil, "config", "show")
	if strings.Contains(plain, "# default") {
		t.Errorf("without --origin, no origins: %s", plain)
	}
}

// A webhook's URL holds its secret in the path (Slack's, Discord's):
// config show, often pasted into a bug report, shows its scheme and host
// only (attack A7).
func TestConfigShowHidesTheWebhooksSecretPath(t *testing.T) {
	configWorld(t, "[notify.webhook]\nurl = \"https://hooks.example.com/services/T0/B0/SECRETSECRET?token=QUERYSECRET\"\n", "")
	for _, args := range [][]string{{"config", "show"}, {"config", "show", "--origin"}} {
		out, errOut, code := runOwt(t, "", nil, args...)
		if code != 0 {
			t.Fatalf("%v: code %d, stderr %q", args, code, errOut)
		}
		if strings.Contains(out, "SECRET") || !strings.Contains(out, `url = "https://hooks.example.com/…"`) {
			t.Errorf("%v: the webhook's path or query shown, or its host not:\n%s", args, out)
		}
	}
}
