# dynamics_ros: the two commands of the quick start, and their helpers.
# Everything installs into .venv from requirements.txt; nothing by hand.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Two steps: what the package runs on (make demo), then the test tools,
# the Pinocchio oracle and the docs' Sphinx (make test, lint, docs, bench).
STAMP := $(VENV)/.installed
STAMP_TEST := $(VENV)/.installed-test
# The distribution's versions (make test-distro): ROS 2 Jazzy on Ubuntu
# 24.04 - Python 3.12, Jazzy's ros-* wheels, noble's numpy and scipy: the
# lowest versions requirements.txt allows (constraints-distro.txt; pin,
# below its range, excepted).
# The first interpreter that really is 3.12 (a pyenv shim may not be): on
# PATH, else a pyenv-installed 3.12 (PYENV_ROOT, default ~/.pyenv).
PYENV_VERSIONS := $(or $(PYENV_ROOT),$(HOME)/.pyenv)/versions
PYTHON_DISTRO ?= $(shell for p in python3.12 $(PYENV_VERSIONS)/3.12*/bin/python3.12; do $$p -c 'import sys; assert sys.version_info[:2] == (3, 12); print(sys.executable)' 2>/dev/null && break; done)
VENV_DISTRO := .venv-distro
# Jazzy's metapackages (each pins its ros-* wheel at Jazzy's build) installed
# with requirements.txt, so pip proves the ranges admit Jazzy's wheels.
JAZZY_WHEELS := $(addprefix ros-jazzy-,rclpy sensor-msgs std-msgs \
	geometry-msgs trajectory-msgs rosgraph-msgs std-srvs rmw-fastrtps-cpp \
	ament-index-python ament-flake8 ament-pep257)
PY_DISTRO := $(VENV_DISTRO)/bin/python
STAMP_DISTRO := $(VENV_DISTRO)/.installed
# What the distro run leaves out, and why (the same code runs in `make test`):
# - test/package/test_colcon_build.py: colcon and setuptools drive the build,
#   not the numerical libraries; it compiles every kernel again (minutes).
# - the `ros` tests (nodes talking over DDS, test/nodes/, and the tier on
#   the real ros2 command line, test/ros2_tools/, run where
#   ../shared/ros2-tools is): they take most of the suite's time, and CI's
#   90 minutes hold one run of them. Jazzy's rclpy is held to the names the
#   nodes use by test/package/test_rclpy_api.py, which runs in both.
# - Pinocchio as the oracle: pin 4.1 (any pin >= 3 on Python 3.12) needs
#   numpy >= 2. Every test comparing with it still runs: each call it makes
#   gets the answer Pinocchio 4.1 gave the same test in .venv, once its
#   inputs match those recorded (DYNAMICS_ROS_ORACLE=replay:
#   test/oracle_record.py, test/data/oracle_calls/, written by
#   scripts/write_oracle_calls.py); the four control and estimation modules
#   that step Pinocchio as a plant or in toppra's grid (too many calls to
#   store: NOT_RECORDED there) ask pin 2.7.0 instead, the newest whose
#   cp312 wheels take numpy 1.26: they use its URDF parser and RNEA only.
DISTRO_PYTEST := -m 'not ros' --ignore=test/package/test_colcon_build.py
URDF ?=
ROOT ?=
TIP ?=
# DDS stays on loopback for every node this Makefile starts.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST

.PHONY: venv venv-distro demo test test-distro fuzz lint bench docs clean constraints

venv: $(STAMP_TEST)

# constraints.txt: the versions CI tested (make constraints writes it), so a
# fresh clone installs those and not whatever PyPI has newest that day.
$(STAMP): requirements.txt constraints.txt setup.py package.xml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# requirements.txt up to its "# Tests:" section: what the package runs
	# on (about half a minute less to install than the whole file).
	sed '/^# Tests:/,$$d' requirements.txt > $(VENV)/requirements-run.txt
	$(PY) -m pip install --quiet -r $(VENV)/requirements-run.txt -c constraints.txt
	# compat: a .pth puts the clone on sys.path, so `import dynamics_ros`
	# from the clone's parent folder finds this package, not the clone
	# folder as an empty namespace package (setuptools' default editable
	# finder runs after that lookup).
	$(PY) -m pip install --quiet --no-deps --no-build-isolation --use-pep517 -e . \
		--config-settings editable_mode=compat
	# Compile the numba kernels a user needs first now (minutes on 2 cores,
	# once: figure in benchmarks/results.md, "Quick start"): nodes and the
	# demo then load machine code from the cache at first start.  The motor
	# plant's and the regressor's compile on first use (make test: before
	# the tests).
	$(PY) -m dynamics_ros.fast --first-use
	touch $(STAMP)

$(STAMP_TEST): $(STAMP)
	$(PY) -m pip install --quiet -r requirements.txt -c constraints.txt
	touch $(STAMP_TEST)

venv-distro: $(STAMP_DISTRO)

$(STAMP_DISTRO): requirements.txt constraints-distro.txt setup.py package.xml
	@test -n "$(PYTHON_DISTRO)" || { echo 'make venv-distro needs Python 3.12 (python3.12 not found; set PYTHON_DISTRO=...)'; exit 1; }
	$(PYTHON_DISTRO) -m venv $(VENV_DISTRO)
	# All of requirements.txt, but pin below its range: 2.7.0
	# (constraints-distro.txt), as pin >= 3's cp312 wheels need numpy >= 2
	# (cmeel-boost). The oracle's answers are replayed there
	# (test/oracle_record.py, test/data/oracle_calls/); pin 2.7 computes
	# those of the modules not stored.
	grep -vE '^pin[<>=]' requirements.txt > $(VENV_DISTRO)/requirements.txt
	$(PY_DISTRO) -m pip install --quiet -r $(VENV_DISTRO)/requirements.txt \
		pin $(JAZZY_WHEELS) -c constraints-distro.txt
	$(PY_DISTRO) -m pip install --quiet --no-deps --no-build-isolation --use-pep517 -e . \
		--config-settings editable_mode=compat
	$(PY_DISTRO) -m dynamics_ros.fast --first-use
	touch $(STAMP_DISTRO)

# The resolved versions of requirements.txt for the development venv, as a
# fresh install on $(PYTHON) would get them today (nothing is installed).
constraints: requirements.txt
	$(PYTHON) scripts/write_constraints.py requirements.txt constraints.txt

demo: $(STAMP)
	$(PY) -m dynamics_ros demo $(if $(URDF),--urdf $(URDF),) \
		$(if $(ROOT),--root $(ROOT),) $(if $(TIP),--tip $(TIP),)

# The suite runs its test files side by side in TEST_JOBS workers
# (pytest-xdist), each file whole on one worker, so its module fixtures and
# nodes start once.  TEST_JOBS=0 runs it in one process.  Two by default,
# not one per CPU: each worker imports every node test module, and each
# module holds a ROS_DOMAIN_ID from then until it has run (test/ros_harness
# .py: 119 ids, about 40 modules).
TEST_JOBS ?= 2
PYTEST_JOBS = $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)

test: $(STAMP_TEST)
	# Kernels compiled once per run, before any test (a no-op when cached).
	$(PY) -m dynamics_ros.fast
	$(PY) -m pytest -q $(PYTEST_JOBS) test

test-distro: $(STAMP_DISTRO)
	$(PY_DISTRO) -m dynamics_ros.fast
	$(PY_DISTRO) -m pip list --format=freeze | grep -iE '^(numpy|scipy|matplotlib|sympy|numba|llvmlite|pyyaml|ros-rclpy|pin)=='
	DYNAMICS_ROS_ORACLE=replay $(PY_DISTRO) -m pytest -q $(PYTEST_JOBS) $(DISTRO_PYTEST) test

# The long fuzz run (doc/development.md): FUZZ_SECONDS of hostile input,
# the node fuzz in one worker and the command fuzz tests in the other.
FUZZ_SECONDS ?= 3600
fuzz: $(STAMP_TEST)
	$(PY) -m dynamics_ros.fast
	DYNAMICS_ROS_FUZZ_SECONDS=$(FUZZ_SECONDS) $(PY) -m pytest -v -n 2 --dist loadfile \
		test/nodes/test_fuzz_nodes.py test/cli/test_cli_fuzz.py

lint: $(STAMP_TEST)
	$(PY) -m pytest -q -m linter test

# The documentation (doc/, Sphinx + MyST; rosdoc2 builds the same pages):
# warnings are errors.  Open build/docs/index.html.
docs: $(STAMP_TEST)
	$(PY) -m sphinx -W --keep-going -q -b html doc build/docs

bench: $(STAMP_TEST)
	$(PY) benchmarks/bench_core.py

clean:
	rm -rf $(VENV) $(VENV_DISTRO) build install log demo_output *.egg-info
