# Looking inside the kernels: Nsight Compute counters and compute-sanitizer.
#
#   make profile  STEP=06 [ARGS="--rows 4096 --cols 4096 --variant shared_32x8"]
#   make sanitize STEP=06 [ARGS="--rows 67 --cols 131"]
#
# Both build the step first.  Both need a GPU and a tool from the CUDA
# toolkit; without them they print one line and stop (tools/*.sh exit 3,
# which make reports as "Error 3").  tools/profile.sh and tools/sanitize.sh
# describe the runs, the environment variables (PROFILE_CSV, PROFILE_CUBLAS,
# SANITIZE_TOOLS, ...) and the exit codes.

.PHONY: profile sanitize

# $(call tools_need_step,TARGET): stop with exit 2 unless STEP names a step.
tools_need_step = \
	test -n "$(STEP)" || { echo "error: say which step, e.g. make $(1) STEP=06" >&2; exit 2; }; \
	test -n "$(call step_src,$(STEP))" || { echo "error: no step '$(STEP)': use a two-digit number from 01 to 10" >&2; exit 2; }

profile: ## Nsight Compute counters of one step's kernels: make profile STEP=06 [ARGS="--rows 4096 --cols 4096"]
	@$(call tools_need_step,profile)
	@bash tools/profile.sh --check-env
	@$(MAKE) --no-print-directory $(BUILD)/step$(STEP)
	@bash tools/profile.sh $(STEP) $(BUILD)/step$(STEP) $(ARGS)

sanitize: ## compute-sanitizer memcheck, racecheck, synccheck on one step: make sanitize STEP=06 [ARGS=...]
	@$(call tools_need_step,sanitize)
	@bash tools/sanitize.sh --check-env
	@$(MAKE) --no-print-directory $(BUILD)/step$(STEP)
	@bash tools/sanitize.sh $(STEP) $(BUILD)/step$(STEP) $(ARGS)
