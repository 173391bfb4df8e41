// Package httpcall makes owt's outbound HTTP requests (a notice to ntfy
// or a webhook, the stream of replies from a ntfy topic) without linking
// net/http into owt, whose start-up cost every hook and status-line run
// would pay: each request is described as JSON and run by owt-mcp, the
// sibling program that links it (owt-mcp _http, the description on its
// stdin, never in argv). The client that speaks HTTP is httpcall/nethttp;
// a test plugs it in directly as the Doer.
//
// A token never goes through argv or a log line: a request names the
// environment variable that holds it (BearerEnv), read where the request
// is made, or carries it in the description on stdin.
package httpcall

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"
)

// Program is the sibling program that runs requests.
const Program = "owt-mcp"

// Request is one HTTP request as owt describes it.
type Request struct {
	Method string            `json:"method"`
	URL    string            `json:"url"`
	Header map[string]string `json:"header,omitempty"`
	// BearerEnv names an environment variable whose value is sent as
	// "Authorization: Bearer VALUE"; Bearer is such a value itself. Both
	// empty: no Authorization header.
	BearerEnv string `json:"bearer_env,omitempty"`
	Bearer    string `json:"bearer,omitempty"`
	Body      []byte `json:"body,omitempty"`
	// Timeout bounds the whole request; for a stream, only the wait for
	// the response's head (the stream itself lasts as long as ctx).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Stream asks for the body line by line as it arrives (Stream).
	Stream bool `json:"stream,omitempty"`
}

// Response is what came back: the status code and, for Do, the body
// (bounded by MaxBody).
type Response struct {
	Status int    `json:"status"`
	Body   []byte `json:"body,omitempty"`
}

// MaxBody bounds the body of a response Do keeps, and one line of a
// stream.
const MaxBody = 1 << 20

// Doer runs requests: Sibling in owt, nethttp.Client where net/http is
// linked anyway (owt-mcp, tests).
type Doer interface {
	// Do makes one request; a status of 300 or more is no error here.
	Do(ctx context.Context, req Request) (Response, error)
	// Stream makes a request and hands each line of its body to line as
	// it arrives, until the body ends, ctx ends or line returns false.
	// A status of 300 or more is a *StatusError.
	Stream(ctx context.Context, req Request, line func([]byte) bool) error
}

// StatusError is a response with a status of 300 or more, where the
// caller wanted a body to read.
type StatusError struct {
	Status int
	Body   string
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return "the server answered " + strconv.Itoa(e.Status)
	}
	return "the server answered " + strconv.Itoa(e.Status) + ": " + e.Body
}

// ErrNoBearer: BearerEnv names a variable that is not set.
var ErrNoBearer = errors.New("the token's environment variable is not set")

// Redact is u as a log line or an error may show it: its scheme and
// host only. A webhook's secret sits in its path or query, a ntfy topic
// is a password of sorts, and a user:password@ is one.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "(a URL)"
	}
	return p.Scheme + "://" + p.Host
}
