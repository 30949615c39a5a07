# PayDesk: two commands on a fresh Debian 12 machine.
#   make run   the cashier's app with the embedded, flaky mock PSP
#   make test  every test (installs what it needs first)
#   make backoffice  the back office on a private PostgreSQL with two demo registers
# and the package a store installs:
#   make package       target/release/bundle/deb/PayDesk_<version>_amd64.deb
#   make test-package  builds it, then runs what it carries through a sale
SHELL := /bin/bash
.DEFAULT_GOAL := help
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# postgresql: the back office's tests start private clusters with its binaries;
# chromium + chromium-driver: the back office's dashboard test.
# gnome-keyring, libsecret-tools, dbus-daemon, dbus-bin: a real Secret Service on a private bus
# for the keychain tests; libdbus-1-dev for the keyring crate.
# sqlite3: Debian's own SQLite (3.40), which a ledger must open in (ledger tests/old_sqlite.rs).
# libssl-dev: HTTPS to a real PSP and the back office goes through Debian's OpenSSL (record 0109).
APT_PKGS := build-essential pkg-config libwebkit2gtk-4.1-dev xvfb webkit2gtk-driver python3-venv postgresql chromium chromium-driver \
	gnome-keyring libsecret-tools dbus-daemon dbus-bin libdbus-1-dev sqlite3 libssl-dev
# PostgreSQL refuses to run as root: as root, the private clusters run as this user.
PG_USER := paydesk-pg
CARGO_BIN := $(HOME)/.cargo/bin
export PATH := $(CARGO_BIN):$(PATH)

.PHONY: help deps deps-apt deps-rust deps-py deps-tauri test run bench soak backoffice package package-appimage test-package

help:
	@echo "make run    start PayDesk with the embedded mock PSP"
	@echo "make test   install what is missing, then run every test"
	@echo "make bench  benchmarks (ratios from one run)"
	@echo "make backoffice  the back office (private PostgreSQL, two demo registers), prints the dashboard URL"
	@echo "make package       build the .deb (release profile)"
	@echo "make test-package  build the .deb and test the app it carries"

# Installs only what is missing, so a second run costs a few dpkg look-ups.
deps-apt:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing apt packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@if [ "$$(id -u)" = 0 ] && ! id -u $(PG_USER) >/dev/null 2>&1; then \
	  echo "creating system user $(PG_USER) for private PostgreSQL clusters"; \
	  useradd --system --no-create-home --shell /usr/sbin/nologin $(PG_USER); \
	fi

deps-rust:
	@command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
	@command -v tauri-driver >/dev/null || cargo install tauri-driver --version "^2" --locked

# The official Stripe Python SDK, used by a test that drives the mock PSP with it.
deps-py:
	@[ -x .venv/bin/python ] && .venv/bin/python -c 'import stripe' 2>/dev/null || \
	  { python3 -m venv .venv && .venv/bin/pip install -q stripe; }

deps: deps-apt deps-rust deps-py

# The binaries and the tests in ONE cargo invocation, so with ONE feature set: building the
# tests turns on what dev-dependencies ask for (tauri's "test", the receipt's test printer,
# ...), and a separate `cargo build --workspace --bins` before them compiled those crates,
# and the app, twice (docs/decisions/0103-one-test-binary-per-crate.md). End-to-end tests
# run the binaries (the app, mock-psp, paydesk-cli) as real processes; PAYDESK_BIN_DIR
# hands the tests their folder, so none asks cargo again while the tests run.
TARGET_DIR := $(abspath $(or $(CARGO_TARGET_DIR),target))
# Every test, the packaged app's included. The .deb's release build (make package) starts
# first and runs beside the tool installs and the debug build. `setsid` gives it its own
# session (one process group, so a failure anywhere stops it too) and so its own scheduler
# autogroup: the two builds share the 2 cores equally, and the release build is usually done
# before the tests start, which then have the machine to themselves. Measured against holding
# it at low priority, this is the shorter run (docs/decisions/0105-ci-time.md). Each phase
# prints its wall time.
PKG_LOG := $(TARGET_DIR)/make-package.log
NEXTEST := PAYDESK_APP_BIN=$(TARGET_DIR)/debug/paydesk PAYDESK_BIN_DIR=$(TARGET_DIR)/debug cargo nextest run --workspace --no-fail-fast
test: deps-apt deps-tauri
	@mkdir -p $(TARGET_DIR); \
	setsid -w nice -n 19 $(MAKE) --no-print-directory package >$(PKG_LOG) 2>&1 & pkg=$$!; \
	trap 'kill -TERM -- -$$pkg 2>/dev/null' EXIT; \
	t=$$SECONDS; $(MAKE) --no-print-directory deps-rust deps-py || exit 1; \
	echo "make test: tools $$((SECONDS - t)) s"; \
	t=$$SECONDS; cargo build --workspace --bins --tests --examples || exit 1; \
	echo "make test: debug build $$((SECONDS - t)) s (the .deb building beside it)"; \
	t=$$SECONDS; rc=0; $(NEXTEST) -E 'not binary_id(paydesk-e2e::package)' || rc=1; \
	echo "make test: tests $$((SECONDS - t)) s (the .deb building beside them)"; t=$$SECONDS; \
	if wait $$pkg; then echo "make test: rest of the .deb build $$((SECONDS - t)) s"; \
	else tail -n 40 $(PKG_LOG); echo "make test: make package failed (log: $(PKG_LOG))"; exit 1; fi; \
	t=$$SECONDS; $(NEXTEST) -E 'binary_id(paydesk-e2e::package)' || rc=1; \
	echo "make test: package tests $$((SECONDS - t)) s"; exit $$rc

# Tauri's bundler through its CLI, pinned to one 2.x release and installed from npm
# into .tauri-cli/ (a prebuilt binary; `cargo install tauri-cli` compiles for ~8 min).
# npm comes with Node.js; Debian's own npm package only where there is no npm at all.
TAURI_CLI_VERSION := 2.12.5
TAURI := .tauri-cli/node_modules/.bin/tauri
deps-tauri:
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq npm; }
	@[ "$$($(TAURI) --version 2>/dev/null)" = "tauri-cli $(TAURI_CLI_VERSION)" ] || \
	  npm install --prefix .tauri-cli --no-save --no-audit --no-fund --loglevel=error @tauri-apps/cli@$(TAURI_CLI_VERSION)

# The .deb: release profile (Cargo.toml: thin LTO, stripped), desktop entry, icons,
# the workspace's version (src-tauri/tauri.conf.json "bundle"; docs/packaging.md).
# Reproducible: the same commit gives the same bytes. SOURCE_DATE_EPOCH is the commit's
# time; the bundler's package is re-packed with it (src-tauri/packaging/repack-deb.sh).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
package: deps-apt deps-tauri
	$(TAURI) build --bundles deb
	for deb in $(TARGET_DIR)/release/bundle/deb/*.deb; do src-tauri/packaging/repack-deb.sh "$$deb"; done
	@ls -l $(TARGET_DIR)/release/bundle/deb/*.deb

# Needs linuxdeploy and the AppImage runtime, which the bundler downloads from GitHub:
# fails where GitHub cannot be reached (docs/packaging.md says what to provide).
package-appimage: deps-apt deps-tauri
	$(TAURI) build --bundles appimage

# Unpacks the .deb and drives the binary it carries (tests/package.rs). --workspace:
# features unified as in `make test`, so its dependencies are found built instead of
# rebuilt with another feature set (after `make test`, only this one binary is linked).
test-package: deps package
	$(NEXTEST) -E 'binary_id(paydesk-e2e::package)'

# Ratios from one run of each benchmark, collected into docs/benchmarks.md.
bench: deps-apt deps-rust
	mkdir -p target/bench
	cargo run -q --release -p paydesk-ledger --example bench | tee target/bench/ledger.txt
	cargo run -q --release -p paydesk-register --example scan_bench | tee target/bench/scan.txt
	cargo run -q --release -p mock-psp -- bench | tee target/bench/mock-psp.txt
	cargo build -q --release -p mock-psp -p paydesk-cli
	rm -f target/bench/cli.db*; coproc PSP { exec target/release/mock-psp --addr 127.0.0.1:0 --db :memory: --secret-key sk_test_a; }; \
	  read -r line <&$${PSP[0]}; url=$${line#listening on }; \
	  target/release/paydesk-cli --db target/bench/cli.db --psp-url $$url --psp-key sk_test_a bench | tee target/bench/cli.txt; \
	  kill $$PSP_PID
	cargo bench -q -p paydesk-e2e --bench app | tee target/bench/app.txt
	cargo run -q --release -p paydesk-sim --example sim_bench -- --collect target/bench
	cargo run -q --release -p paydesk-backoffice --example ingest_bench | tee target/bench/backoffice.txt
	cargo build -q --release -p mock-psp --bin mock-psp
	cargo run -q --release -p paydesk-backoffice --example recon_bench -- $${RECON_CHARGES:-100000} | tee target/bench/recon.txt
	cargo run -q --release -p paydesk-sync --example latency_bench | tee target/bench/sync-latency.txt

# The long deterministic chaos simulation (seeds in parallel, audited; figures in docs/).
# SPLIT=0.5: that share of the sales paid by several tenders (0: single-card sales).
# READER=0.5: that share of the single-tender sales paid on a simulated card reader.
SPLIT ?= 0
READER ?= 0
soak:
	cargo run -q --release -p paydesk-cli -- simulate --seed 1 --seeds 100 --checkouts 10000 --profile chaos --jobs 2 --summary --split-share $(SPLIT) --reader-share $(READER)

# The cashier's app with the embedded, flaky mock PSP; data in the platform's app-data
# dir (PAYDESK_DATA_DIR or --data-dir to override). Flags: make run ARGS="--help".
# Built with the workspace's product features (no dev-dependencies): `cargo run -p paydesk`
# would resolve features for that package alone and rebuild dozens of crates, minutes, each
# time you switch. `make test` builds with the tests' features (tauri's "test", ...), so the
# first `make run` after it rebuilds those crates once. Without a display the app itself
# says so and how to run it anyway.
# DEMO=ja-JP (or en-US) picks the demo store a NEW data folder gets; without it the OS
# language decides (LANG=ja… → ja-JP). An existing store is never reseeded.
run: deps-apt
	cargo build --workspace --bins
	$(TARGET_DIR)/debug/paydesk $(if $(DEMO),--demo-store $(DEMO)) $(ARGS)

# The back office on a private PostgreSQL cluster (a temp dir, stopped on Ctrl-C) with a
# demo store of two registers; prints the dashboard URL and where the owner's token is.
# ARGS="--addr 127.0.0.1:9000" to listen elsewhere.
backoffice: deps-apt
	cargo build --workspace --bins
	$(TARGET_DIR)/debug/paydesk-backoffice dev --admin-token-out $(TARGET_DIR)/backoffice-admin-token $(ARGS)
