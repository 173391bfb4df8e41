package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// [notify.ntfy] reads from the user's own file, its values checked; the
// token is named by its variable, never held.
func TestNotifyNtfyIsRead(t *testing.T) {
	root := setup(t, "[notify.ntfy]\ntopic = \"owt-me\"\ntoken_env = \"NTFY_TOKEN\"\nreply = true\non = [\"waiting\"]\n", "")
	cfg, err := Load(root)
	require.NoError(t, err)
	n := cfg.Notify.Ntfy
	require.Equal(t, NotifyNtfy{Topic: "owt-me", TokenEnv: "NTFY_TOKEN", Reply: true, On: []string{"waiting"}}, n)
	require.Equal(t, "owt-me-reply", n.ReplyTopicOr())

	root = setup(t, "[notify.ntfy]\nurl = \"ftp://x\"\ntopic = \"a b\"\ntoken_env = \"tk_abc-123\"\nreply = true\nreply_topic = \"a b\"\non = [\"x\"]\n", "")
	_, err = Load(root)
	require.Error(t, err)
	for _, key := range []string{"notify.ntfy.url", "notify.ntfy.topic", "notify.ntfy.token_env", "notify.ntfy.reply_topic", "notify.ntfy.on"} {
		require.ErrorContains(t, err, key)
	}
	require.NotContains(t, err.Error(), "tk_abc-123", "a token put in token_env by mistake is not repeated")
}

// A repository's .owt.toml cannot set [notify.ntfy]: its buttons answer
// prompts, so where notices go is the user's to say. The user's own
// table stands.
func TestNotifyNtfyOnlyFromTheUsersFile(t *testing.T) {
	root := setup(t, "[notify.ntfy]\ntopic = \"mine\"\n", "[notify.ntfy]\nurl = \"https://evil.example\"\ntopic = \"theirs\"\nreply = true\n")
	cfg, err := Load(root)
	require.ErrorContains(t, err, "notify.ntfy")
	require.ErrorContains(t, err, RepoFile)
	require.Equal(t, NotifyNtfy{Topic: "mine"}, cfg.Notify.Ntfy)
}
