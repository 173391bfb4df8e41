# owt — build, test, bench, demo. `make test` is what CI runs.
GO      ?= go
BIN     ?= bin/owt
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/owt-tmux/owt/internal/cli.Version=$(VERSION)
PREFIX  ?= $(HOME)/.local
# urfave_cli_no_docs leaves out urfave/cli's man-page generator, whose
# markdown library costs every owt start ~0.5 ms (hooks run owt a lot).
TAGS    ?= urfave_cli_no_docs

.PHONY: build test unit e2e bench install demo lint clean realtools

# owt, and beside it owt-popup (the tmux popups), owt-mcp (the MCP
# server and the memory) and owt-wait (what waits for each agent in its
# pane: a few hundred KiB, not owt's few MiB): kept out of owt so no hook
# or status-line run loads terminal UI libraries, net/http or SQLite. All are static,
# cgo-free binaries (net's resolver would otherwise link libc into owt-mcp).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/owt
	CGO_ENABLED=0 $(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(dir $(BIN))owt-popup ./cmd/owt-popup
	CGO_ENABLED=0 $(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(dir $(BIN))owt-mcp ./cmd/owt-mcp
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(dir $(BIN))owt-wait ./cmd/owt-wait

# Everything: lint, unit tests, the fake agent's own tests, and the
# end-to-end tests against real tmux and git. The end-to-end tests run in
# parallel, E2E_PARALLEL worlds at once (3: at 4 the two cores ran late
# enough for timing flakes; internal/e2e/fixture; the real
# agent CLIs one at a time, counting for half of them); -p 2 lets the unit
# packages run beside them, which mostly wait on tmux and the agents.
E2E_PARALLEL ?= 3
test: lint
	$(GO) test -p 2 -parallel $(E2E_PARALLEL) -count=1 -timeout 30m ./... ./testdata/fakeagent/

# The fast tier for the edit-test loop: unit tests only; the end-to-end
# worlds skip under -short (internal/e2e/fixture).
unit:
	$(GO) test -short -count=1 ./... ./testdata/fakeagent/

# The end-to-end worlds alone.
e2e:
	$(GO) test -parallel $(E2E_PARALLEL) -count=1 -timeout 30m ./internal/e2e/

# The real agent CLIs, at the versions pinned in testdata/realtools, into
# $(XDG_CACHE_HOME)/owt-realtools (~/.cache by default). The real-tool tests
# in make test use them, and skip, saying so, when they are not installed.
realtools:
	./testdata/realtools/install.sh

bench: build
	$(GO) run ./internal/bench -owt $(BIN)

install: build
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/owt
	install -m 0755 $(dir $(BIN))owt-popup $(PREFIX)/bin/owt-popup
	install -m 0755 $(dir $(BIN))owt-mcp $(PREFIX)/bin/owt-mcp
	install -m 0755 $(dir $(BIN))owt-wait $(PREFIX)/bin/owt-wait

# A throwaway tmux server where three agents work on their own, through
# to a merge (scripts/demo.sh, docs/demo.md). go build skips what is up to
# date, so on a warm cache the first screen comes in seconds.
demo: build
	$(GO) build -o bin/owt-demo-agent ./testdata/fakeagent
	./scripts/demo.sh

lint:
	@out=$$(gofmt -l cmd internal testdata popups keybindings 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./... ./testdata/fakeagent/ ./testdata/fakegh/

clean:
	rm -rf bin
