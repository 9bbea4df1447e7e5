# dynamics_ros: the two commands of the quick start, and their helpers.
# Everything installs into .venv from requirements.txt; nothing by hand.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
URDF ?=
ROOT ?=
TIP ?=
# DDS stays on loopback for every node this Makefile starts.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST

.PHONY: venv demo test lint bench docs clean

venv: $(STAMP)

$(STAMP): requirements.txt setup.py package.xml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	# Compile the numba kernels now (minutes on 2 cores, once: figure in
	# benchmarks/results.md, "Quick start"): nodes, the demo and the tests
	# then load machine code from the cache at first start.
	$(PY) -m dynamics_ros.fast
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m dynamics_ros demo $(if $(URDF),--urdf $(URDF),) \
		$(if $(ROOT),--root $(ROOT),) $(if $(TIP),--tip $(TIP),)

test: $(STAMP)
	# Kernels compiled once per run, before any test (a no-op when cached).
	$(PY) -m dynamics_ros.fast
	$(PY) -m pytest -q test

lint: $(STAMP)
	$(PY) -m pytest -q -m linter test

# The documentation (doc/, Sphinx + MyST; rosdoc2 builds the same pages):
# warnings are errors.  Open build/docs/index.html.
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -q -b html doc build/docs

bench: $(STAMP)
	$(PY) benchmarks/bench_core.py

clean:
	rm -rf $(VENV) build install log demo_output *.egg-info
