# owt — build, test, bench, demo. `make test` is what CI runs.
GO      ?= go
BIN     ?= bin/owt
PREFIX  ?= $(HOME)/.local
GORELEASER ?= goreleaser

.PHONY: build test unit e2e bench bench-fleet install demo lint clean realtools release-snapshot release-check docs screenshots cross

# owt, and beside it owt-popup (the tmux popups) and owt-mcp (the MCP
# server and the memory), all built by
# scripts/build.sh: the flags are there, once, for make, the tmux plugin's
# background build and (held equal by a test) .goreleaser.yaml. The
# version is what Go stamps from git: the tag at a release, else
# v0.0.0-dev and the commit (internal/buildinfo).
build:
	./scripts/build.sh $(dir $(BIN)) $(GO)

# Everything: lint, the unit tests (the fast tier), then the end-to-end
# tests against real tmux and git, one after the other. The end-to-end
# tests run in parallel, at most E2E_PARALLEL worlds at once, a new one
# only while the CPU is idle enough (internal/e2e/fixture: most worlds wait
# on tmux, the agents and timeouts; a busy machine runs fewer), at most
# two real agent CLIs at once. Run beside them, the unit packages' builds
# and tests kept the machine busy, so fewer worlds started: on two cores
# make test took longer than the two tiers one after the other.
E2E_PARALLEL ?= 6
UNIT_TESTS = CGO_ENABLED=0 $(GO) test $(AS_SHIPPED) -short -count=1 ./... ./testdata/fakeagent/
E2E_TESTS  = CGO_ENABLED=0 $(GO) test $(AS_SHIPPED) -parallel $(E2E_PARALLEL) -count=1 -timeout 30m ./internal/e2e/
# The checks and the tests build every package as scripts/build.sh builds
# owt for a release: static (CGO_ENABLED=0), -trimpath, the
# urfave_cli_no_docs tag. So vet, the unit tests, the e2e test binary and
# the programs the e2e fixture builds share one build of each package;
# on a cold build cache (CI's) three sets of flags made three builds.
# (These -tags replace any -tags of your GOFLAGS.)
AS_SHIPPED = -trimpath -tags=urfave_cli_no_docs
test: lint
	$(UNIT_TESTS)
	$(E2E_TESTS)

# The fast tier for the edit-test loop: unit tests only; the end-to-end
# worlds skip under -short (internal/e2e/fixture).
unit:
	$(UNIT_TESTS)

# The end-to-end worlds alone.
e2e:
	$(E2E_TESTS)

# The real agent CLIs, at the versions pinned in testdata/realtools, into
# $(XDG_CACHE_HOME)/owt-realtools (~/.cache by default). The real-tool tests
# in make test use them, and skip, saying so, when they are not installed.
realtools:
	./testdata/realtools/install.sh

bench: build
	$(GO) run ./internal/bench -owt $(BIN)

# The fleet figures (docs/explanation/fleet.md): 10, 100 and 500 fake
# agents, e.g. make bench-fleet FLEET='-fleet 10,100'; with
# FLEET='-peer PATH' agent-deck beside owt (scripts/bench-peer.sh).
bench-fleet: build
	$(GO) run ./internal/bench -owt $(BIN) -only fleet $(FLEET)

# Every program into $(PREFIX)/bin, by the script a release install runs
# (scripts/install.sh), which says what to add when that is not on PATH.
install: build
	PREFIX='$(PREFIX)' ./scripts/install.sh --from $(dir $(BIN))

# The release archives (.goreleaser.yaml) built here, published nowhere:
# dist/owt_VERSION_OS_ARCH.tar.gz for linux and darwin, amd64 and arm64,
# and dist/checksums.txt. Needs GoReleaser v2 (docs/install.md says how).
release-snapshot:
	$(GORELEASER) release --snapshot --clean

# Every package compiles for every system a release archive is made for
# (CI runs it; .goreleaser.yaml builds linux and darwin, amd64 and arm64).
# Only compiling: a few CPU-minutes on a cold cache, so not in make test.
CROSS ?= darwin/arm64 darwin/amd64 linux/arm64
cross:
	@for p in $(CROSS); do echo "go build ./... for $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -tags urfave_cli_no_docs ./... || exit 1; done

# GoReleaser's own check of .goreleaser.yaml (the unit tests hold its
# invariants without it: internal/buildinfo).
release-check:
	$(GORELEASER) check

# A throwaway tmux server where three agents work on their own, through
# to a merge (scripts/demo.sh, docs/demo.md). go build skips what is up to
# date, so on a warm cache the first screen comes in seconds.
# The demo agent is built as scripts/build.sh builds owt (static,
# -trimpath), so it reuses that build's cache instead of compiling the
# standard library again (minutes on a cold cache).
demo: build
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/owt-demo-agent ./testdata/fakeagent
	./scripts/demo.sh

# The generated references, from the code they describe:
# docs/reference/cli.md (the command tree), config.md (the config
# schema), tmux-options.md (the key table and the plugin's options) and
# the man page docs/man/owt.1. internal/docgen's test fails when the
# committed ones differ from what this writes.
docs:
	$(GO) run ./internal/docgen

# The PNGs under docs/images, taken from the demo's world on a real tmux
# client (internal/tools/screenshots, docs/images/README.md): re-run it
# when a screen changes and commit the images. Not part of test: it takes
# about a minute. freeze, which lays them out, comes from that tool's own
# module (its go.mod), so owt's module never needs it.
screenshots: build
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/owt-demo-agent ./testdata/fakeagent
	cd internal/tools/screenshots && $(GO) build -o ../../../bin/freeze github.com/charmbracelet/freeze
	cd internal/tools/screenshots && $(GO) run . -root ../../.. -freeze ../../../bin/freeze

lint:
	@out=$$(gofmt -l cmd internal testdata popups keybindings 2>/dev/null); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	CGO_ENABLED=0 $(GO) vet $(AS_SHIPPED) ./... ./testdata/fakeagent/ ./testdata/fakegh/

clean:
	rm -rf bin dist
