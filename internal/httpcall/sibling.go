package httpcall

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/owt-tmux/owt/internal/proc"
)

// Sibling is the Doer of owt: each request runs in owt-mcp, found beside
// the running program (or on PATH), as owt-mcp _http with the request's
// JSON on its stdin. For Do its stdout is the Response's JSON; for
// Stream, a first line with the Response's JSON (the status), then the
// body's lines. An error is one line on its stderr and a non-zero exit.
type Sibling struct {
	// Path is owt-mcp's path; "" finds it beside this program.
	Path string
}

func (s Sibling) program() (string, error) {
	if s.Path != "" {
		return s.Path, nil
	}
	self, _ := os.Executable()
	return proc.Sibling(self, Program)
}

// Do runs req in owt-mcp and returns its response.
func (s Sibling) Do(ctx context.Context, req Request) (Response, error) {
	req.Stream = false
	bin, err := s.program()
	if err != nil {
		return Response{}, err
	}
	in, err := json.Marshal(req)
	if err != nil {
		return Response{}, fmt.Errorf("%s %s: %w", req.Method, Redact(req.URL), err)
	}
	cmd := proc.Command(ctx, bin, "_http")
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := proc.Run(ctx, cmd); err != nil {
		return Response{}, siblingError(ctx, req, err, stderr.String())
	}
	var resp Response
	if err := json.Unmarshal(out.Bytes(), &resp); err != nil {
		return Response{}, fmt.Errorf("%s %s: read %s's answer: %w", req.Method, Redact(req.URL), Program, err)
	}
	return resp, nil
}

// Stream runs req in owt-mcp and hands each line of the body to line.
func (s Sibling) Stream(ctx context.Context, req Request, line func([]byte) bool) error {
	req.Stream = true
	bin, err := s.program()
	if err != nil {
		return err
	}
	in, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, Redact(req.URL), err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := proc.Command(ctx, bin, "_http")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dieWithParent(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, Redact(req.URL), err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s %s: start %s: %w", req.Method, Redact(req.URL), Program, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), MaxBody)
	first, stopped := true, false
	var head Response
	for sc.Scan() {
		if first {
			first = false
			if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
				cancel()
				break
			}
			continue
		}
		if !line(sc.Bytes()) {
			stopped = true
			cancel()
			break
		}
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	switch {
	case stopped:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return siblingError(ctx, req, err, stderr.String())
	case head.Status >= 300:
		return &StatusError{Status: head.Status}
	}
	return nil
}

// siblingError is the error of a request owt-mcp could not make: its
// own line, which says it (a StatusError's words too), without the
// program's "owt: " before it; or, when ctx ended first, that the server
// gave no answer in time.
func siblingError(ctx context.Context, req Request, err error, stderr string) error {
	method := req.Method
	if method == "" {
		method = "GET"
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return NoAnswer(method, req.URL)
	}
	if msg := strings.TrimSpace(stderr); msg != "" {
		msg = strings.TrimPrefix(msg, "owt: ")
		msg = strings.TrimPrefix(msg, Program+": ")
		return errors.New(msg)
	}
	return fmt.Errorf("%s %s: %s: %w", method, Redact(req.URL), Program, err)
}

// NoAnswer is the error of a request to u whose server gave no answer in
// time: it is context.DeadlineExceeded, said in words.
func NoAnswer(method, u string) error {
	return noAnswer{method + " " + Redact(u) + ": no answer in time"}
}

type noAnswer struct{ msg string }

func (e noAnswer) Error() string { return e.msg }
func (e noAnswer) Unwrap() error { return context.DeadlineExceeded }
