# orbench: `make bench` runs the default campaign end to end; `make test` runs every test.
# Both install what is missing first (Debian packages, the Python venv, Maven artifacts), idempotently.

SHELL := /bin/bash
ROOT := $(CURDIR)
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python
# make test's and make test-slow's pytest run on JOBS processes (pytest-xdist), longest test first, a module's tests
# that share a fixture on one process (harness/tests/scheduling.py); then the tests marked exclusive, alone: they
# need the CPUs to themselves (a known answer in time). Three processes on two CPUs: a test waiting on its workers
# or on SSH leaves a CPU to the others. make test runs ctest and JUnit beside them. JOBS=1: one process throughout
# (CONTRIBUTING.md, Tests).
JOBS ?= 3
XDIST = $(if $(filter-out 0 1,$(JOBS)),-n $(JOBS))
LANES = $(if $(filter-out 0 1,$(JOBS)),-j 3 --output-sync=line,-j 1)
ORBENCH := $(VENV)/bin/orbench
CAMPAIGN ?= quick
# Debian packages the targets need: omniORB (C++ ORB and its IDL compiler), pkg-config to find it,
# nlohmann-json for the C++ workers' command loop, util-linux for taskset (CPU pinning), chromium for the
# report's browser test, sockperf for make bench-fidelity; OpenSSH client for campaigns on remote hosts, and its
# server plus iproute2 for the tests' network-namespace hosts (iproute2's ss also reads a remote host's TCP counters);
# strace for the anatomy mode's syscall counts; linux-perf (perf record, the C++ workers' profiler) and jattach
# (attaches async-profiler to a running JVM) for the profile mode; gRPC C++ with protoc and its C++ plugin
# (grpc-cpp), ZeroC Ice C++ and its Slice compilers, slice2cpp and slice2java (ice-cpp, ice-java); Apache Thrift
# C++, its compiler and the Boost headers Thrift's own headers include (thrift-cpp); Cap'n Proto C++ and its
# schema compiler (capnp-cpp); valgrind (callgrind, vgdb) for the counting mode's instructions per call.
DEB_PACKAGES := libomniorb4-dev omniidl omniorb pkg-config nlohmann-json3-dev util-linux chromium sockperf \
	openssh-client openssh-server iproute2 strace linux-perf jattach libgrpc++-dev libprotobuf-dev \
	protobuf-compiler protobuf-compiler-grpc libzeroc-ice-dev zeroc-ice-compilers libthrift-dev thrift-compiler \
	libboost-dev libcapnp-dev capnproto valgrind
MVN := mvn -q -B -f java/pom.xml
# Maven's own JVM on the JIT's first tier: its runs here are too short for the top tier to pay back its compiling
# (`mvn test` used 31 s of CPU, 19 s so). A MAVEN_OPTS of the caller's is kept.
export MAVEN_OPTS ?= -XX:TieredStopAtLevel=1
# A JDK 22+ to compile the java-ffm transport (FFM API): FFM_JDK=/path overrides; else the newest JDK 22+
# under /usr/lib/jvm (its release file says JAVA_VERSION). None found: java-ffm is not built, and
# `orbench targets` says so.
FFM_JDK ?= $(shell for d in /usr/lib/jvm/*/; do v=$$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' $$d/release 2>/dev/null); \
  [ -n "$$v" ] && [ "$$v" -ge 22 ] && [ -x $$d/bin/javac ] && echo "$${d%/}"; done | tail -1)
JAVA_FFM_FLAGS := $(if $(FFM_JDK),-Dffm.jdk=$(FFM_JDK))
# Debian's slice2java builds the ice-java workers (Maven profile ice); none on PATH: ice-java is not built, and
# `orbench targets` says so. JAVA_FLAGS: every optional part of the Java build this machine can do, looked up when
# a recipe runs (after `deps` installed slice2java), not when make reads this file.
SLICE2JAVA ?= $(shell command -v slice2java)
JAVA_FLAGS = $(JAVA_FFM_FLAGS) $(if $(SLICE2JAVA),-Dslice2java=$(SLICE2JAVA))

.PHONY: help bench test test-cpp test-java test-harness test-slow coverage deps deps-system deps-python build cpp java python check targets lint clean jmh \
	jmh-build bench-fidelity docs reference

# A newcomer's first `make bench` shows what was installed and built in a few lines, then the campaign: each
# build step's output goes to a log (one line when it works, the log's tail when it fails), and make does not
# announce the directories of its sub-makes (cmake's).
MAKEFLAGS += --no-print-directory
# $(call quietly,WHAT,LOG,COMMAND): run COMMAND with its output in LOG; say WHAT was done, or show why not.
quietly = log=$(2); mkdir -p $$(dirname $$log); \
	if { $(3) ; } >$$log 2>&1; then echo "$(1) (log: $${log\#$(ROOT)/})"; \
	else tail -n 40 $$log >&2; echo "error: $(1): failed, full log: $$log" >&2; exit 1; fi

help:
	@echo "make bench      install, build, run harness/campaigns/$(CAMPAIGN).toml, make the report"
	@echo "make test       install, build, run the C++ (ctest), Java (JUnit) and harness (pytest) tests"
	@echo "make test JOBS=1  the same, one test at a time (default: ctest, JUnit and three pytest-xdist processes at once)"
	@echo "make test-slow  the harness tests marked slow (every other target's check-target, long soaks, ...)"
	@echo "make coverage   both test layers under coverage.py: line and branch coverage of harness/orbench"
	@echo "make deps       install Debian packages and the Python venv (.venv)"
	@echo "make build      build the C++ (cpp/build), Java (java/target) and Python (harness/workers/python/build) workers"
	@echo "make check      run every available target through the worker contract"
	@echo "make targets    list targets and whether each is available"
	@echo "make jmh        build and run the JMH suite (java/jmh) per Java ORB, ingest it into results/jmh/ (~10 min)"
	@echo "make bench-fidelity  orbench's workers vs references (sockperf, plain C/Java/Python ping-pongs, a bare omniORB loop), ratio per size"
	@echo "make docs       build the user guide (harness/docs) into harness/docs/site/; any warning or broken link fails"
	@echo "make reference  run the middleware campaign and make it the guide's reference result set (results/reference/)"
	@echo "variables: CAMPAIGN=name-or-file (default quick); JMH_ORBS (default jacorb glassfish), JMH_ARGS;"
	@echo "           REFERENCE_MACHINE (how the guide names the machine of make reference)"

deps: deps-system deps-python

deps-system:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; \
	  else echo "error: need root (or sudo) to install:$$missing" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq -o DPkg::Lock::Timeout=300 $$missing >/dev/null; \
	fi

# The stamp holds the hash of the Python package definitions, so pip runs again only when they change.
PY_STAMP := $(VENV)/.orbench-$(shell cat harness/pyproject.toml plots/pyproject.toml harness/docs/pyproject.toml | sha1sum | cut -c1-12)
deps-python: $(PY_STAMP)
$(PY_STAMP):
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(call quietly,installed .venv: orbench with its plots and guide (editable) and ruff,$(VENV)/pip.log,\
	  $(PY) -m pip install --upgrade pip && $(PY) -m pip install -e 'harness[test]' -e plots -e harness/docs ruff)
	@rm -f $(VENV)/.orbench-*; touch $@

build: cpp java python

# The Python workers (harness/workers/python): a venv of their own with omniORBpy and gRPC from PyPI (requirements.txt,
# pinned), kept apart from the harness's .venv because the IDL's module `orbench` would shadow the harness's
# package; the stubs are generated from idl/orbench.idl by that omniidl, into build/stubs (never committed).
PYW := $(ROOT)/harness/workers/python
PYW_BUILD := $(PYW)/build
PYW_STAMP := $(PYW_BUILD)/.venv-$(shell sha1sum < harness/workers/python/requirements.txt | cut -c1-12)
python: $(PYW_BUILD)/stubs/orbench/__init__.py $(PYW_BUILD)/grpc/orbench_pb2_grpc.py
$(PYW_STAMP):
	@test -x $(PYW_BUILD)/venv/bin/python || python3 -m venv $(PYW_BUILD)/venv
	@$(call quietly,installed the Python workers' venv: omniORBpy and gRPC,$(PYW_BUILD)/pip.log,\
	  $(PYW_BUILD)/venv/bin/python -m pip install -r $(PYW)/requirements.txt)
	@rm -f $(PYW_BUILD)/.venv-*; touch $@
$(PYW_BUILD)/stubs/orbench/__init__.py: idl/orbench.idl $(PYW_STAMP)
	@$(call quietly,generated the omniORBpy stubs in harness/workers/python/build/stubs,$(PYW_BUILD)/omniidl.log,\
	  rm -rf $(PYW_BUILD)/stubs && mkdir -p $(PYW_BUILD)/stubs && \
	  $(PYW_BUILD)/venv/bin/omniidl -bpython -C $(PYW_BUILD)/stubs idl/orbench.idl)
# gRPC: the project's IDL translator writes the .proto (as for grpc-cpp and grpc-java), grpcio-tools' protoc
# the Python messages and stubs.
$(PYW_BUILD)/grpc/orbench_pb2_grpc.py: idl/orbench.idl $(PYW_STAMP) $(wildcard harness/orbench/idl/*.py harness/orbench/idl/emitters/*.py)
	@$(call quietly,generated the gRPC Python stubs in harness/workers/python/build/grpc,$(PYW_BUILD)/protoc.log,\
	  rm -rf $(PYW_BUILD)/grpc && mkdir -p $(PYW_BUILD)/grpc && \
	  PYTHONPATH=harness python3 -m orbench.idl proto idl/orbench.idl $(PYW_BUILD)/grpc/orbench.proto && \
	  $(PYW_BUILD)/venv/bin/python -m grpc_tools.protoc -I $(PYW_BUILD)/grpc --python_out=$(PYW_BUILD)/grpc \
	  --grpc_python_out=$(PYW_BUILD)/grpc $(PYW_BUILD)/grpc/orbench.proto)

cpp: deps-system
	@$(call quietly,built the C++ workers in cpp/build,$(ROOT)/cpp/build/make.log,\
	  cmake -S cpp -B cpp/build -DCMAKE_BUILD_TYPE=Release && cmake --build cpp/build -j2)

# Maven builds the workers (and, with a JDK 22+ found, the FFM transport); CMake then builds the java-jni
# baselines' C library from the JNI header javac wrote, into java/target/native/.
# A Maven build that has nothing to do still takes tens of seconds (its plugins each check their outputs), so a
# stamp skips it: $(call unchanged,STAMP,FLAGS,INPUTS,OUTPUTS) is true when STAMP holds FLAGS (the build's options),
# no file under INPUTS is newer than it and every file of OUTPUTS is there.
unchanged = [ -f $(1) ] && [ "$$(cat $(1))" = "$(2)" ] \
	&& [ -z "$$(find $(3) -newer $(1) -type f -not -name "*.pyc" -print -quit)" ] \
	&& for f in $(4); do [ -f $$f ] || exit 1; done
# What the Java build reads: its sources, the IDL and the translator that writes the proto and Slice from it.
JAVA_INPUTS := java/pom.xml java/src java/jni idl harness/orbench/idl
java:
	@( $(call unchanged,java/target/.built,$(JAVA_FLAGS),$(JAVA_INPUTS),java/target/orbench-workers.jar \
	  java/target/native/liborbench-jni.so) ) || { \
	$(call quietly,built the Java workers and ORB jars in java/target,$(ROOT)/java/target/make.log,\
	  $(MVN) -DskipTests package $(JAVA_FLAGS) && cmake -S java/jni -B java/target/jni-build \
	  -DCMAKE_BUILD_TYPE=Release && cmake --build java/target/jni-build) && echo '$(JAVA_FLAGS)' > java/target/.built; }

bench: deps build
	$(ORBENCH) run $(CAMPAIGN)

# The harness, C++ and Java tests at once (LANES, each line of their output whole), beside the lint, the JMH build
# and the guide; then the exclusive tests alone.
test: deps build
	$(MAKE) $(LANES) test-harness test-cpp test-java lint jmh-build docs
	cd harness && $(PY) -m pytest -q -m "exclusive and not slow"

test-cpp:
	cd cpp/build && ctest --output-on-failure

test-java:
	$(MVN) test $(JAVA_FLAGS)

test-harness:
	cd harness && $(PY) -m pytest -q -m "not slow and not exclusive" $(XDIST)

# The tests marked slow (tens of seconds each: the other targets' check-target, long soaks, remote campaigns
# over a WAN link or with a resume, fidelity); CI runs them after `make test`.
test-slow: deps build
	cd harness && $(PY) -m pytest -q -m "slow and not exclusive" $(XDIST)
	cd harness && $(PY) -m pytest -q -m "slow and exclusive"

# Each layer's line and branch coverage of harness/orbench (coverage.py), the fast layer alone and both together;
# under coverage the tests run slower, so this is no measure of their time (CONTRIBUTING.md, Tests).
coverage: deps build
	cd harness && $(PY) -m tests.measure_layers

check: deps build
	$(ORBENCH) check-target $$($(ORBENCH) targets | awk '$$NF == "available" {print $$1}')

targets: deps-python
	$(ORBENCH) targets -v

lint: deps-python
	$(VENV)/bin/ruff check harness plots

clean:
	rm -rf cpp/build java/target java/jmh/target harness/workers/python/build

# JMH: its own Maven project (java/jmh), built by `make test` as a compile check, run only here. One JMH run per
# Java ORB in JMH_ORBS (java/jmh/run-orb.sh: that ORB's jars alone on the class path); the first also runs the
# ORB-independent JniBench. All runs are ingested as one JMH run, even when a benchmark failed (then make fails).
# JMH_ARGS passes options through, e.g. JMH_ARGS='-wi 1 -i 2 -r 500ms CdrBench' for a short look.
JMH_ARGS ?=
JMH_ORBS ?= jacorb glassfish
jmh-build: java
	@( $(call unchanged,java/jmh/target/.built,,java/jmh/pom.xml java/jmh/src java/target/orbench-workers.jar,\
	  java/jmh/target/jmh-classes.jar) ) || { \
	$(call quietly,built the JMH suite in java/jmh/target,$(ROOT)/java/jmh/target/make.log,\
	  mvn -q -B -f java/jmh/pom.xml package) && echo > java/jmh/target/.built; }

jmh: deps jmh-build
	@mkdir -p results
	@status=0; files=""; extra=""; for orb in $(JMH_ORBS); do \
	  java/jmh/run-orb.sh $$orb $(ROOT)/results/jmh-$$orb.json $$extra $(JMH_ARGS) || status=1; \
	  [ -s $(ROOT)/results/jmh-$$orb.json ] && files="$$files $(ROOT)/results/jmh-$$orb.json"; extra="-e JniBench"; \
	done; \
	if [ -n "$$files" ]; then $(ORBENCH) ingest-jmh $$files || status=1; else echo "error: no JMH results" >&2; status=1; fi; \
	exit $$status

# orbench's workers vs references making the same calls (the user guide, "Fidelity"): the C socket baseline
# (echo, halved) vs sockperf's TCP ping-pong (RTT/2), the socket baselines vs plain C, Java and Python ping-pongs (twoway
# and oneway), the omniORB worker vs cpp/fidelity's bare omniORB loop (twoway and oneway).
bench-fidelity: deps build
	$(ORBENCH) fidelity --placement same-core,split-core

# The user guide (harness/docs/mkdocs.yml): MkDocs, strict, so a warning (a broken link or anchor, a page left out
# of the nav, a reference key without a description) fails the build. It quotes results/reference/.
docs: deps-python
	cd harness/docs && $(VENV)/bin/mkdocs build --strict --quiet
	@echo "built the user guide: harness/docs/site/index.html"

# The guide's reference result set: a middleware campaign on this machine (run it on a quiet one, from a committed
# tree), copied without its raw samples into results/reference/, and README.md's figures block rewritten from it;
# commit both. On a machine with no earlier middleware run a first one plans the budget (its pilot launch may
# leave time for no other, and a run of one launch is refused as the reference). A run whose trials partly failed
# (exit 1) still makes a reference set, its failures in its report.
REFERENCE_MACHINE ?=
reference: deps build
	[ -e $(ROOT)/results/middleware/latest ] || $(ORBENCH) run middleware --no-report || [ $$? -eq 1 ]
	$(ORBENCH) run middleware || [ $$? -eq 1 ]
	$(PY) -m orbench_guide.make_reference $(ROOT)/results/middleware/latest --machine "$(REFERENCE_MACHINE)"
	$(MAKE) docs
