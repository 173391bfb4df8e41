// Package nethttp is the HTTP client behind httpcall: it makes the
// requests httpcall describes with net/http, which only owt-mcp and the
// tests link (owt-mcp _http runs Serve). Errors name the URL by its
// scheme and host only, and never carry a token.
package nethttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/httpcall"
)

// Client makes httpcall requests with net/http.
type Client struct {
	// HTTP is the client used; nil is one with no timeout of its own (each
	// request's Timeout bounds it).
	HTTP *http.Client
	// Getenv reads BearerEnv's variable; nil is os.Getenv.
	Getenv func(string) string
}

var _ httpcall.Doer = Client{}

func (c Client) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// request makes req's *http.Request.
func (c Client) request(ctx context.Context, req httpcall.Request) (*http.Request, error) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	u, err := url.Parse(req.URL)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s %s: not an http(s) URL", method, httpcall.Redact(req.URL))
	}
	hr, err := http.NewRequestWithContext(ctx, method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, httpcall.Redact(req.URL), unwrap(err))
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("User-Agent", "owt")
	token := req.Bearer
	if req.BearerEnv != "" {
		getenv := c.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if token = getenv(req.BearerEnv); token == "" {
			return nil, fmt.Errorf("%s %s: %w (%s)", method, httpcall.Redact(req.URL), httpcall.ErrNoBearer, req.BearerEnv)
		}
	}
	if token != "" {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	return hr, nil
}

// Do makes one request, its body read up to httpcall.MaxBody.
func (c Client) Do(ctx context.Context, req httpcall.Request) (httpcall.Response, error) {
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	hr, err := c.request(ctx, req)
	if err != nil {
		return httpcall.Response{}, err
	}
	resp, err := c.client().Do(hr)
	if errors.Is(err, context.DeadlineExceeded) {
		return httpcall.Response{}, httpcall.NoAnswer(hr.Method, req.URL)
	}
	if err != nil {
		return httpcall.Response{}, fmt.Errorf("%s %s: %w", hr.Method, httpcall.Redact(req.URL), unwrap(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, httpcall.MaxBody))
	if err != nil {
		return httpcall.Response{}, fmt.Errorf("%s %s: read the answer: %w", hr.Method, httpcall.Redact(req.URL), unwrap(err))
	}
	return httpcall.Response{Status: resp.StatusCode, Body: body}, nil
}

// Stream makes a request and hands its body's lines to line; head, when
// not nil, gets the response's status first.
func (c Client) Stream(ctx context.Context, req httpcall.Request, line func([]byte) bool) error {
	return c.stream(ctx, req, nil, line)
}

func (c Client) stream(ctx context.Context, req httpcall.Request, head func(int), line func([]byte) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hr, err := c.request(ctx, req)
	if err != nil {
		return err
	}
	// Timeout bounds the wait for the head: the stream runs on.
	stop := func() bool { return true }
	if req.Timeout > 0 {
		stop = time.AfterFunc(req.Timeout, cancel).Stop
	}
	resp, err := c.client().Do(hr)
	if !stop() && err == nil {
		resp.Body.Close()
		err = context.DeadlineExceeded
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", hr.Method, httpcall.Redact(req.URL), unwrap(err))
	}
	defer resp.Body.Close()
	if head != nil {
		head(resp.StatusCode)
	}
	if resp.StatusCode >= 300 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: %w", hr.Method, httpcall.Redact(req.URL), &httpcall.StatusError{Status: resp.StatusCode, Body: oneLine(body)})
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), httpcall.MaxBody)
	for sc.Scan() {
		if !line(sc.Bytes()) {
			return nil
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("%s %s: %w", hr.Method, httpcall.Redact(req.URL), unwrap(err))
	}
	return ctx.Err()
}

// Serve is owt-mcp _http: it reads one request's JSON from in, makes it,
// and writes the answer to out (see httpcall.Sibling).
func Serve(ctx context.Context, c Client, in io.Reader, out io.Writer) error {
	var req httpcall.Request
	if err := json.NewDecoder(io.LimitReader(in, 4*httpcall.MaxBody)).Decode(&req); err != nil {
		return fmt.Errorf("read the request: %w", err)
	}
	if !req.Stream {
		resp, err := c.Do(ctx, req)
		if err != nil {
			return err
		}
		return json.NewEncoder(out).Encode(resp)
	}
	w := bufio.NewWriter(out)
	var werr error
	err := c.stream(ctx, req, func(status int) {
		werr = json.NewEncoder(w).Encode(httpcall.Response{Status: status})
		if werr == nil {
			werr = w.Flush()
		}
	}, func(l []byte) bool {
		if werr != nil {
			return false
		}
		_, werr = w.Write(append(l, '\n'))
		if werr == nil {
			werr = w.Flush()
		}
		return werr == nil
	})
	if err != nil {
		return err
	}
	return werr
}

// unwrap drops *url.Error's words, which repeat the whole URL (its
// secrets with it), keeping what went wrong.
func unwrap(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}
