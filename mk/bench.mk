# Measuring the steps (python3 -m lab.bench; --help there says more).
#
#   make bench [GPU=h200] [SHAPES="4096x4096 ..."] [STEPS="01 05" or STEP=05]
#   make bench RESUME=1         go on with a sweep that was cut short
#   make bench RERUN="11 12"    measure these steps again, keep the other steps' committed rows
#   make study [STUDIES="pattern order"]   the lab's studies (all by default; python3 -m lab.bench --help
#                               lists them), each -> docs/results/<gpu>-<study>.csv
#   make bench also runs lab.bench --study permute: step 15 on the permutes of ML code, both element types
#   make gpu-session [BATCHES="bench profile"] [RERUN="11 12"]
#                               everything that needs the GPU (python3 -m lab.session)
#
# GPU names the result files, docs/results/<gpu>.csv and friends (default: from
# the GPU's name, "NVIDIA H200" -> h200). SHAPES defaults to the shapes tagged
# `bench` in tests/shapes.txt, STEPS to every steps/NN_*/ directory.

bench_comma := ,
# The steps to measure: those STEP, STEPS or RERUN name (STEP is one more of STEPS), else all.
# The bench builds each one it runs; a step that does not exist is left to lab.bench to refuse.
bench_named  = $(strip $(subst $(bench_comma), ,$(STEP) $(STEPS)))
bench_listed = $(call two_digits,$(strip $(bench_named) $(subst $(bench_comma), ,$(RERUN))))
BENCH_STEPS  = $(if $(bench_listed),$(filter $(STEP_NUMS),$(bench_listed)),$(STEP_NUMS))
bench_gpu    = $(if $(GPU),--gpu '$(GPU)')

.PHONY: bench study study-program gpu-session

bench: setup $(addprefix $(BUILD)/step,$(BENCH_STEPS)) ## run all steps over the shape sweep -> docs/results/<gpu>.csv (fails unless every check is PASS)
	@$(PYTHON) -m lab.bench --build '$(BUILD)' $(bench_gpu) $(if $(SHAPES),--shapes '$(SHAPES)') \
	    $(if $(bench_named),--steps '$(bench_named)') $(if $(RERUN),--rerun '$(RERUN)') \
	    $(if $(filter-out 0,$(RESUME)),--resume)
	@# Step 15 permutes tensors: beside its matrices in the sweep, the tensors of lab.bench's permute study.
	@$(if $(filter 15,$(BENCH_STEPS)),$(PYTHON) -m lab.bench --study permute --build '$(BUILD)' $(bench_gpu))

STUDIES      ?= all
STUDY_BIN    := $(BUILD)/study
EXTRA_BINS   += $(STUDY_BIN)

study-program: $(STUDY_BIN) ## build build/study: the lab's study program (lab/study/study.cu)
$(STUDY_BIN): $(BUILD)/obj/lab/study/study.cu.o $(COMMON_LIB)
	$(link_program)
$(BUILD)/obj/lab/study/study.cu.o: NVCCFLAGS += -DSTEP_NUMBER=study -DSTEP_NAME='"study"'

study: setup $(STUDY_BIN) $(STEP_BINS) ## run the lab's studies (STUDIES="pattern order" for some) -> docs/results/<gpu>-<study>.csv
	@for s in $(STUDIES); do $(PYTHON) -m lab.bench --study $$s --build '$(BUILD)' $(bench_gpu) || exit 1; done

gpu-session: setup ## everything that needs the GPU: test, bench, profile, peers, reference timings, then the figures and pages -> docs/
	@$(PYTHON) -m lab.session $(BATCHES) $(if $(RERUN),--rerun '$(RERUN)')
