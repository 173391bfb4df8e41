package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// owt notify test: an unknown channel is a usage error (exit 2, one
// line); a channel named but off is a failure that says what turns it
// on; the command channel runs the user's program with OWT_EVENT=test;
// --json gives each channel's result.
func TestNotifyTestReportsEachChannel(t *testing.T) {
	configWorld(t, "[notify]\ncommand = [\"sh\", \"-c\", \"test \\\"$OWT_EVENT\\\" = test\"]\n[notify.terminal]\nosc = \"off\"\n", "")

	out, errOut, code := runOwt(t, "", nil, "notify", "test", "pager")
	if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, `no channel "pager"`) {
		t.Fatalf("unknown channel: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	out, errOut, code = runOwt(t, "", nil, "notify", "test", "webhook")
	if code != 1 || !strings.Contains(out, "webhook: off: not configured: [notify.webhook] url is empty") {
		t.Fatalf("webhook off: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	out, errOut, code = runOwt(t, "", nil, "notify", "test", "--json")
	var rs []map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 1 || rs[0]["channel"] != "command" || rs[0]["result"] != "sent" {
		t.Fatalf("json: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}
