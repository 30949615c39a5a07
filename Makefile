# PayDesk: two commands on a fresh Debian 12 machine.
#   make run   the cashier's app with the embedded, flaky mock PSP
#   make test  every test (installs what it needs first)
SHELL := /bin/bash
.DEFAULT_GOAL := help
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PKGS := build-essential pkg-config libwebkit2gtk-4.1-dev xvfb webkit2gtk-driver python3-venv
CARGO_BIN := $(HOME)/.cargo/bin
export PATH := $(CARGO_BIN):$(PATH)

.PHONY: help deps deps-apt deps-rust deps-py test run bench

help:
	@echo "make run    start PayDesk with the embedded mock PSP"
	@echo "make test   install what is missing, then run every test"
	@echo "make bench  benchmarks (ratios from one run)"

# Installs only what is missing, so a second run costs a few dpkg look-ups.
deps-apt:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing apt packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

deps-rust:
	@command -v cargo-nextest >/dev/null || cargo install cargo-nextest --locked
	@command -v tauri-driver >/dev/null || cargo install tauri-driver --version "^2" --locked

# The official Stripe Python SDK, used by a test that drives the mock PSP with it.
deps-py:
	@[ -x .venv/bin/python ] && .venv/bin/python -c 'import stripe' 2>/dev/null || \
	  { python3 -m venv .venv && .venv/bin/pip install -q stripe; }

deps: deps-apt deps-rust deps-py

test: deps
	cargo nextest run --workspace --no-fail-fast

# The cashier's app with the embedded, flaky mock PSP; data in the platform's app-data
# dir (PAYDESK_DATA_DIR or --data-dir to override). Flags: make run ARGS="--help".
run: deps-apt
	cargo run -q -p paydesk -- $(ARGS)
