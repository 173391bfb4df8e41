package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
	"github.com/stretchr/testify/require"
)

// A server that echoes the path it was asked for in its error page (many
// do: "no such hook: /services/…") puts no part of the webhook's secret
// path or query in the failure owt logs and owt notify test prints.
func TestWebhookErrorHidesTheSecretTheServerEchoes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("no such hook: " + r.URL.RequestURI() + " (token " + r.URL.Query().Get("token") + ", hook B0SECRETB0)"))
	}))
	t.Cleanup(srv.Close)
	cfg := config.Defaults().Notify
	cfg.Webhook.URL = srv.URL + "/services/T0SECRETT0/B0SECRETB0/XXSECRETXX?token=QQSECRETQQ"
	r, ok := webhookRoute(cfg, Deps{HTTP: nethttp.Client{}})
	require.True(t, ok)
	err := Deliver(context.Background(), r, hostile, time.Millisecond)
	require.ErrorContains(t, err, "404")
	require.ErrorContains(t, err, "no such hook", "the server's words are kept")
	require.NotContains(t, err.Error(), "SECRET")
}
