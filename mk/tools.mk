# Looking inside the kernels: Nsight Compute counters and the SASS summary (make help shows how to call
# each). profile builds the step first. Without a GPU or ncu it stops with one line (make reports exit 3
# as "Error 3": scripts call python3 -m lab.profile).

.PHONY: profile profile-plan sass

profile: setup ## Nsight Compute counters of one step's kernels: make profile STEP=06 [ARGS="--shapes 4096x4096"]
	@$(call need_step,profile)
	@$(PYTHON) -m lab.profile check-env
	@$(MAKE) --no-print-directory $(BUILD)/step$(STEP)
	@$(PYTHON) -m lab.profile step $(STEP) $(BUILD)/step$(STEP) $(ARGS)

profile-plan: setup ## Nsight Compute over lab/profile_plan.csv -> docs/results/<gpu>-profile.csv [STEPS="11 study" keeps the others' rows]
	@$(PYTHON) -m lab.profile check-env
	@$(MAKE) --no-print-directory $(if $(STEPS),$(foreach s,$(STEPS),$(if $(filter study,$(s)),$(STUDY_BIN),$(BUILD)/step$(s))),$(STEP_BINS) $(STUDY_BIN))
	@$(PYTHON) -m lab.profile plan --build '$(BUILD)' $(if $(GPU),--gpu '$(GPU)') $(if $(STEPS),--steps '$(STEPS)')

sass: setup ## count each step kernel's memory (ldmatrix, stmatrix too), barrier, byte-permute and shuffle instructions in its sm_90 code -> docs/results/sass-sm_90.csv
	@$(PYTHON) -m lab.sass --build '$(BUILD)'
