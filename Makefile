# chronoeval: `make demo` and `make test` both work from a fresh clone (PyPI is the only network used).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint bench clean postgres java chromium

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	# torch is pinned in the same pip call as sentence-transformers, else pip pulls a multi-GB CUDA build.
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0 -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

DEMO_DESCRIPTION := 120 cell towers reporting dropped call rate, throughput and connected users every 15 minutes \
over 3 days; cells go through active, congested and outage, with an outage on a few sites

demo: $(STAMP)
	rm -rf out/demo
	$(VENV)/bin/chronoeval build "$(DEMO_DESCRIPTION)" -o out/demo --yes --sessions out/sessions.sqlite
	@echo "next: source .venv/bin/activate (or call .venv/bin/chronoeval), then see README.md, 'Ten minutes with the demo'"

# the postgres export/backend tests start a throwaway cluster from Debian's server binaries
postgres:
	@bash .ci/ensure_debian_package.sh postgresql 'compgen -G "/usr/lib/postgresql/*/bin/initdb"'

# the gold-SQL dialect tests run Spark SQL on a local PySpark session, which needs a Java runtime
java:
	@bash .ci/ensure_debian_package.sh default-jre-headless 'command -v java'

# the report tests render report.html in Debian's headless Chromium
chromium:
	@bash .ci/ensure_debian_package.sh chromium 'test -x /usr/bin/chromium'

test: $(STAMP) postgres java chromium
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q -n 2  # two workers: the machine has 2 cores (pytest-xdist)

lint: $(STAMP)
	$(VENV)/bin/ruff check .

bench: $(STAMP)  # on a quiet machine: the figures move with load (README, Performance)
	$(PY) bench/bench_generate.py --rows 10000000
	$(PY) bench/bench_queries.py --rows 10000000
	$(PY) bench/bench_infer.py
	$(PY) bench/bench_memory.py
	$(PY) bench/bench_harness.py
	$(PY) bench/bench_describe.py
	$(PY) bench/bench_grade.py

clean:
	rm -rf $(VENV) out build *.egg-info
