# Looking inside the kernels: Nsight Compute counters and compute-sanitizer.
#
#   make profile  STEP=06 [ARGS="--rows 4096 --cols 4096 --variant shared_32x8"]
#   make sanitize STEP=06 [ARGS="--shapes 67x131,5x1000+1"]
#
# Both build the step first; an unknown STEP stops them with one line that
# lists the steps found (need_step, in the Makefile).  Both need a GPU and a
# tool from the CUDA toolkit; without them they print one line and stop
# (tools/*.sh exit 3, which make reports as "Error 3").  tools/profile.sh
# and tools/sanitize.sh describe the runs, the environment variables
# (PROFILE_CSV, PROFILE_CUBLAS, SANITIZE_TOOLS, ...) and the exit codes;
# make sanitize runs the shapes tagged `sanitize` in tests/shapes.txt.

.PHONY: profile sanitize

profile: ## Nsight Compute counters of one step's kernels: make profile STEP=06 [ARGS="--rows 4096 --cols 4096"]
	@$(call need_step,profile)
	@bash tools/profile.sh --check-env
	@$(MAKE) --no-print-directory $(BUILD)/step$(STEP)
	@bash tools/profile.sh $(STEP) $(BUILD)/step$(STEP) $(ARGS)

sanitize: ## compute-sanitizer memcheck, racecheck, synccheck on one step: make sanitize STEP=06 [ARGS=...]
	@$(call need_step,sanitize)
	@bash tools/sanitize.sh --check-env
	@$(MAKE) --no-print-directory $(BUILD)/step$(STEP)
	@bash tools/sanitize.sh $(STEP) $(BUILD)/step$(STEP) $(ARGS)
