# Matrix transpose, step by step.  `make help` lists the targets.
#
# Every program is built under build/ from sources that stay where they are:
#   steps/NN_name/*.cu  ->  build/stepNN      (one program per step)
#   common/*.c, *.cu    ->  build/libcommon.a (harness, baselines, checks)
# ARCH=sm_XX builds in a folder of its own, build/sm_XX/, so that switching
# between it and the default rebuilds nothing.  Header edits rebuild what
# includes them (-MMD -MP); changing the flags rebuilds everything
# (build/flags.txt).  Output is quiet unless V=1.

# ---------------------------------------------------------------- toolchain
NVCC       ?= nvcc
CUDA_HOME  ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC) 2>/dev/null)))
CC         := gcc
BUILD      := build$(if $(ARCH),/$(subst $(eval) ,-,$(strip $(ARCH))))

# GPU architecture.  ARCH=sm_XX builds for exactly that GPU.  Otherwise a
# visible GPU is built for, and without one the documented list below is
# built, plus PTX for the newest so that later GPUs can run it.
FALLBACK_SMS := 75 80 86 89 90
ifdef ARCH
  GPU_SMS := $(patsubst sm_%,%,$(ARCH))
  ARCH_NOTE := ARCH=$(ARCH)
else
  GPU_SMS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
  ARCH_NOTE := detected GPU sm_$(GPU_SMS)
  ifeq ($(GPU_SMS),)
    GPU_SMS := $(FALLBACK_SMS)
    ARCH_NOTE := no GPU visible: sm_$(subst $(eval) ,/,$(FALLBACK_SMS)) + PTX
  endif
endif
PTX_SM     := $(lastword $(GPU_SMS))
ARCH_FLAGS := $(foreach sm,$(GPU_SMS),-gencode arch=compute_$(sm),code=sm_$(sm)) \
              -gencode arch=compute_$(PTX_SM),code=compute_$(PTX_SM)

WARN_C     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Werror
CFLAGS     := -std=c11 -O2 -g -fopenmp $(WARN_C) -Icommon -I$(CUDA_HOME)/include -MMD -MP
NVCCFLAGS  := -std=c++17 -O3 -lineinfo $(ARCH_FLAGS) -Icommon -I. -MMD -MP \
              -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-fopenmp
LDFLAGS    := $(ARCH_FLAGS) -Xcompiler -fopenmp -Xlinker -rpath,$(CUDA_HOME)/lib64
LDLIBS     := -lcublasLt -lcublas

ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-6s %s\n' '$(1)' '$(2)'
endif

# ---------------------------------------------------------------- sources
COMMON_SRCS := $(wildcard common/*.c common/*.cu)
COMMON_OBJS := $(patsubst %,$(BUILD)/obj/%.o,$(COMMON_SRCS))
COMMON_LIB  := $(BUILD)/libcommon.a

# Steps are found, not listed: every directory steps/NN_name/ is step NN, so
# adding a step means adding its directory and nothing else.
STEP_DIRS   := $(sort $(patsubst %/,%,$(wildcard steps/[0-9][0-9]_*/)))
STEP_NUMS   := $(foreach d,$(STEP_DIRS),$(firstword $(subst _, ,$(notdir $(d)))))
STEP_BINS   := $(addprefix $(BUILD)/step,$(STEP_NUMS))
# steps/NN_name/x.cu for step NN (each step directory holds exactly one .cu)
step_src     = $(wildcard steps/$(1)_*/*.cu)
# A step's number and name come from its directory, never from its file:
# steps/07_shared_padded/x.cu is compiled with -DSTEP_NUMBER=07 -DSTEP_NAME="shared_padded".
step_dir_of    = $(notdir $(patsubst %/,%,$(dir $(1))))
step_number_of = $(firstword $(subst _, ,$(call step_dir_of,$(1))))
step_defines   = $(if $(filter steps/%,$(1)),-DSTEP_NUMBER=$(call step_number_of,$(1)) \
                 -DSTEP_NAME='"$(patsubst $(call step_number_of,$(1))_%,%,$(call step_dir_of,$(1)))"')

# STEP=5 and STEP=05 name the same step, as EX=5 and EX=05 name the same
# exercise: a single digit gets its leading zero.
two_digits = $(foreach n,$(1),$(if $(filter 1 2 3 4 5 6 7 8 9,$(n)),0$(n),$(n)))
override STEP := $(call two_digits,$(STEP))

# $(call need_step,TARGET): shell commands that stop with one line on stderr
# and exit 2 unless STEP is one step number that exists; the message lists
# the steps found.
step_known  = $(if $(and $(filter 1,$(words $(STEP))),$(if $(findstring %,$(STEP)),,1)),$(filter $(STEP),$(STEP_NUMS)))
need_step   = test -n "$(STEP)" || { echo "error: say which step, e.g. make $(1) STEP=$(firstword $(STEP_NUMS))" >&2; exit 2; }; \
              test -n "$(step_known)" || { echo "error: no step '$(STEP)': the steps are $(STEP_NUMS)" >&2; exit 2; }

TEST_BINS   := $(addprefix $(BUILD)/tests/,test_common test_permute test_permute_tiles test_tiles test_tiles16 planted_wrong planted_wrong_16 planted_permute)
ALL_BINS     = $(STEP_BINS) $(TEST_BINS) $(EXTRA_BINS)

# ---------------------------------------------------------------- Python
# The lab runs on $(PYTHON), which `make setup` chooses (python3 -m lab.environment). With .venv its
# bin/ comes first on PATH, as activating it would, so that the python3 the tests start is the same one.
VENV    := .venv
PYTHON  ?= $(if $(shell test -x $(VENV)/bin/python && echo yes),PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/python,python3)

.PHONY: all help run diff test docs clean setup
.DEFAULT_GOAL := help

# Further targets (grading, profiling, benchmarks) live in mk/*.mk; they are
# read here so that the programs they add (EXTRA_BINS) are part of `all`.
include $(sort $(wildcard mk/*.mk))

help: ## list the targets
	@echo "Matrix transpose tutorial.  Targets:"
	@grep -hE '^[a-zA-Z0-9_%-]+:.*## ' $(MAKEFILE_LIST) | sed -e 's/:.*## /\t/' \
	  | awk -F'\t' '{printf "  make %-28s %s\n", $$1, $$2}'
	@echo "Steps found under steps/ (make stepNN builds build/stepNN; build/stepNN --help says what it does):"
	@$(foreach dir,$(STEP_DIRS),printf '  make %-28s %s\n' step$(call step_number_of,$(dir)/) $(notdir $(dir));)
	@echo "Variables: ARCH=sm_XX (default: $(ARCH_NOTE); ARCH=sm_XX builds in build/sm_XX/), V=1 for full commands."

# PYTHON=python3, on the command line or in the environment, skips the set-up.
setup: ## the lab's Python packages, once (python3 if it has pyproject.toml's pins, else .venv); make test etc. run it first
	@$(if $(filter command line environment,$(origin PYTHON)),true,python3 -m lab.environment)

all: $(ALL_BINS) ## build every step, test and tool program (warnings are errors)

# `make step05` builds build/step05.
$(foreach n,$(STEP_NUMS),$(eval step$(n): $(BUILD)/step$(n)))
$(foreach n,$(STEP_NUMS),$(eval .PHONY: step$(n)))
$(foreach n,$(STEP_NUMS),$(eval $(BUILD)/step$(n): $(BUILD)/obj/$(call step_src,$(n)).o $(COMMON_LIB)))

run: ## build and run one step: make run STEP=01 [ARGS="--shapes 4096x4096,1000x1000"]
	@$(call need_step,run)
	@$(MAKE) --no-print-directory $(BUILD)/step$(STEP)
	./$(BUILD)/step$(STEP) $(ARGS)

# The word diff shows a step's change as the student reads it: a few words
# inside otherwise equal lines.  Colors on a terminal, [-old-]{+new+} markers
# otherwise; WORD_DIFF=plain or WORD_DIFF=color forces one.
diff: ## what a step changed, word by word, against the step before it: make diff STEP=07
	@$(call need_step,diff)
	@test "$(STEP)" != "$(firstword $(STEP_NUMS))" || { echo "error: step $(STEP) is the first step: there is no step before it to compare with" >&2; exit 2; }
	@previous=; for n in $(STEP_NUMS); do [ "$$n" = "$(STEP)" ] && break; previous=$$n; done; \
	mode=$(WORD_DIFF); [ -n "$$mode" ] || { [ -t 1 ] && mode=color || mode=plain; }; \
	git diff --no-index --word-diff=$$mode -- steps/$${previous}_*/*.cu $(call step_src,$(STEP)); \
	status=$$?; [ $$status -le 1 ] || exit 3

# pytest builds everything first, as you watch (tests/conftest.py), then runs the tests on
# every core.  PYTEST_ARGS="-m docs" runs one section (the markers are in pyproject.toml);
# --run-slow adds the slow ones; -n 0 runs them one at a time.
PYTEST_ARGS ?=
test: setup ## build everything and run the test suite (pytest; GPU tests skip without a GPU): make test [PYTEST_ARGS="-m docs"]
	@$(PYTHON) -m pytest -p no:cacheprovider -rs -n auto --dist worksteal $(PYTEST_ARGS)

docs: ## build the Doxygen site under build/docs (warnings are errors)
	@command -v doxygen >/dev/null || { echo "error: doxygen not found: install it (apt-get install doxygen)" >&2; exit 3; }
	@mkdir -p $(BUILD)/docs
	$(call say,DOXY,$(BUILD)/docs/html/index.html)
	$(Q){ cat docs/Doxyfile; echo 'OUTPUT_DIRECTORY = $(BUILD)/docs'; } | doxygen - > $(BUILD)/docs/doxygen.log

clean: ## remove build/
	rm -rf $(BUILD)

# ---------------------------------------------------------------- rules
# Rebuild everything when the compile flags change (for example ARCH).
$(BUILD)/flags.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(NVCCFLAGS) | $(CFLAGS) | $(LDFLAGS)' | cmp -s - $@ || echo '$(NVCCFLAGS) | $(CFLAGS) | $(LDFLAGS)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.c.o: %.c $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVCCFLAGS) $(call step_defines,$<) -c $< -o $@

# The same source without its main(), for programs that link several steps.
$(BUILD)/obj/%.cu.nomain.o: %.cu $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,NVCC,$< [no main])
	$(Q)$(NVCC) $(NVCCFLAGS) $(call step_defines,$<) -DTRANSPOSE_NO_MAIN -c $< -o $@

$(COMMON_LIB): $(COMMON_OBJS)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Every program links the same way: its objects and libraries, then cuBLAS.
define link_program
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(LDFLAGS) $(filter %.o %.a,$^) $(LDLIBS) -o $@
endef

$(BUILD)/step%:
	$(link_program)

$(BUILD)/tests/test_common $(BUILD)/tests/test_permute: $(BUILD)/tests/%: $(BUILD)/obj/tests/%.c.o $(COMMON_LIB)
$(BUILD)/tests/test_tiles $(BUILD)/tests/test_tiles16 $(BUILD)/tests/test_permute_tiles: $(BUILD)/tests/%: $(BUILD)/obj/tests/%.cu.o $(COMMON_LIB)
$(BUILD)/tests/planted_wrong $(BUILD)/tests/planted_wrong_16 $(BUILD)/tests/planted_permute: $(BUILD)/tests/%: $(BUILD)/obj/tests/%.cu.o $(COMMON_LIB)
$(BUILD)/tests/%:
	$(link_program)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# For scripts: the programs `make all` builds, and the folder they go in.
print-bins:
	@echo $(ALL_BINS)
print-build:
	@echo $(BUILD)
.PHONY: print-bins print-build
