# The two commands a newcomer needs: `make run` and `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PPOCR_STAMP := $(VENV)/.ppocr-stamp
UI_OUT := webui/dist/.vite/manifest.json
UI_SRC := $(shell find webui/src -type f 2>/dev/null) webui/package.json webui/vite.config.ts webui/tsconfig.json
NODE_STAMP := webui/node_modules/.package-lock.json
MARKET_OUT   := .cache/market/packages
MARKET_STAMP := .cache/market/.built-stamp
MARKET_SRC   := $(shell find server/market/builtin/real -name '*.py' 2>/dev/null) server/market/package.py

UV     := $(VENV)/bin/uv
TEST_STAMP := $(VENV)/.test-installed-stamp
# uv, from the index, wheel folders and constraints pip is configured with (scripts/uv_install.py).
INSTALL := $(PY) scripts/uv_install.py -q

.PHONY: run test test-load check bench setup setup-all serve-setup ui types clean sandbox-tools market wheel

# Everything `make test` needs; the Python packages and the web UI are installed side by side.
setup:
	$(MAKE) -j2 setup-all

setup-all: serve-setup $(TEST_STAMP) $(PPOCR_STAMP) $(MARKET_STAMP)

# What `make run` needs to serve: the server with the extras its features use (training
# templates: torch; LLM export), the built UI and the sandbox. Not the test tools, the Ray
# backend's client or the market's real algorithms (`make market`).
serve-setup: $(STAMP) $(UI_OUT) sandbox-tools

# The sandbox users' code runs in (docs/security.md): Debian's bubblewrap and slirp4netns,
# installed here when this is root and they are missing; otherwise the server says what is missing.
sandbox-tools:
	@missing=""; command -v bwrap >/dev/null 2>&1 || missing="$$missing bubblewrap"; \
	command -v slirp4netns >/dev/null 2>&1 || missing="$$missing slirp4netns"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "the sandbox needs:$$missing (sudo apt-get install$$missing)"; fi; \
	fi

$(UV):
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q uv==0.13.8

# Then the bytecode of what the server imports (uv writes none), beside the web UI's build rather
# than in the first start after it.
$(STAMP): pyproject.toml setup.py | $(UV)
	$(INSTALL) -e '.[train,llm]'
	env -u PYTHONDONTWRITEBYTECODE $(PY) -c 'import server.cli, server.app'
	touch $(STAMP)

# Then every module's bytecode, as pip's installs wrote it: the suite starts hundreds of Python
# processes (uv compiles only what it installs in that step; a file that is not Python 3 fails
# to compile, as under pip, without failing the install).
$(TEST_STAMP): $(STAMP)
	$(INSTALL) -e '.[dev,train,llm,ray]'
	-$(PY) -m compileall -q -j 0 $$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))') >/dev/null
	touch $(TEST_STAMP)

# PaddleOCR's PP-OCRv4 models as rapidocr's wheel ships them (tests/fakes/ppocr.py reads its
# .onnx files by path; none of its code runs, so none of its dependencies are installed).
$(PPOCR_STAMP): $(TEST_STAMP)
	$(INSTALL) --no-deps rapidocr-onnxruntime==1.4.4
	touch $(PPOCR_STAMP)

# The real pretrained algorithms of the market (docs/market.md): pinned PyPI packages downloaded
# once into .cache/market/downloads/, then built offline; rebuilt when the builder changes.
$(MARKET_STAMP): $(TEST_STAMP) $(MARKET_SRC)
	OMP_NUM_THREADS=1 $(PY) -m server.market.builtin.real $(MARKET_OUT)
	touch $(MARKET_STAMP)

market: $(MARKET_STAMP)

$(NODE_STAMP): webui/package-lock.json
	cd webui && npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

$(UI_OUT): $(NODE_STAMP) $(UI_SRC)
	cd webui && npm run build

ui: $(UI_OUT)

# The web UI's API types, webui/src/api/schema.gen.ts, from the server's OpenAPI document
# (scripts/openapi_types.py; no server runs). It takes seconds, so `make ui` does not: the
# committed file is checked instead (tests/webui/test_api_types.py fails when it is stale).
types: $(STAMP) $(NODE_STAMP)
	$(PY) scripts/openapi_types.py

# The wheel, with the built UI inside (setup.py), into dist/: `pip install` it and `mnnwb serve`
# runs without the repository (docs/quickstart.md).
wheel: $(STAMP) $(UI_OUT)
	rm -rf build
	$(PY) -m pip wheel -q --no-deps --no-build-isolation -w dist .
	rm -rf build

# uv installs no bytecode (pip compiles all of it, torch included): the server writes it for what
# it imports the first time, even where PYTHONDONTWRITEBYTECODE is set, so later starts skip it.
run:
	$(MAKE) -j2 serve-setup
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/mnnwb serve

# Two processes: the suite keeps one core busy at a time, and CI machines have two.
PYTEST := $(VENV)/bin/pytest -n 2 --dist loadgroup

test: setup
	$(PYTEST)

# The suite with every core kept busy by other processes, as on a loaded CI machine.
test-load: setup
	$(PY) -m tests.cpu_hog $(PYTEST)

check: setup
	$(VENV)/bin/ruff check server device_bridge tests bench
	$(VENV)/bin/mypy server device_bridge
	$(VENV)/bin/vulture
	cd webui && npx tsc --noEmit

bench: setup
	for script in bench/*.py; do $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) webui/node_modules webui/dist
