# Measuring the steps (python3 -m lab.bench; --help there says more).
#
#   make bench [GPU=h200] [SHAPES="4096x4096 ..."] [STEPS="01 05" or STEP=05] [BENCH_ARGS="--reps 50"]
#   make bench RESUME=1         go on with a sweep that was cut short
#   make bench RERUN="11 12"    measure these steps again, keep the other steps' committed rows
#   make narrow-study           step 12's rule on matrices narrower or flatter than a tile
#   make pitch-study            step 12's rule on the pitch of out's rows: its alignment, powers of two
#   make runs-study            step 12's choice of run length on odd matrices of few rows or columns
#   make lines-study            steps 12 and 13's rule for the L2 line hint on tall matrices
#   make order-study            step 13's tile order, down the columns or along the rows, from squares to 100 : 1
#   make pattern-study          step 12's answer beside the bounds of its pattern, near the odd matrices
#   make timing-study           the old (write) and new (read) L2 flush, on the float32 answer
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

.PHONY: bench narrow-study pitch-study runs-study lines-study order-study pattern-study timing-study gpu-session

bench: setup $(addprefix $(BUILD)/step,$(BENCH_STEPS)) ## run all steps over the shape sweep -> docs/results/<gpu>.csv (fails unless every check is PASS)
	@$(PYTHON) -m lab.bench --build '$(BUILD)' $(bench_gpu) $(if $(SHAPES),--shapes '$(SHAPES)') \
	    $(if $(bench_named),--steps '$(bench_named)') $(if $(RERUN),--rerun '$(RERUN)') \
	    $(if $(filter-out 0,$(RESUME)),--resume) $(if $(BENCH_ARGS),--program-args='$(BENCH_ARGS)')

narrow-study: setup $(BUILD)/step09 $(BUILD)/step11 $(BUILD)/step12 $(BUILD)/step13 ## time steps 09-12's kernels and step 13's on matrices of 2-63 columns or rows -> docs/results/<gpu>-narrow.csv
	@$(PYTHON) -m lab.bench --study narrow --build '$(BUILD)' $(bench_gpu)

pitch-study: setup $(BUILD)/step09 $(BUILD)/step11 $(BUILD)/step12 ## time step 09, step 11 and step 12's answer where rows of out start on 16-128 bytes or are a power of two bytes apart -> docs/results/<gpu>-pitch.csv
	@$(PYTHON) -m lab.bench --study pitch --build '$(BUILD)' $(bench_gpu)

runs-study: setup $(BUILD)/step11 $(BUILD)/step12 ## time step 11's runs of 64 and of 96 floats and step 12's answer on odd matrices of few rows or columns -> docs/results/<gpu>-runs.csv
	@$(PYTHON) -m lab.bench --study runs --build '$(BUILD)' $(bench_gpu)

lines-study: setup $(BUILD)/step12 $(BUILD)/step13 ## time the defaults of steps 12 (float32) and 13 (bf16) beside their loads asking L2 for whole lines always and never, on matrices of 10000-100001 rows and on three tall ones a tile wide -> docs/results/<gpu>-lines.csv
	@$(PYTHON) -m lab.bench --study lines --build '$(BUILD)' $(bench_gpu)

order-study: setup $(BUILD)/step13 ## time step 13's default beside its tiles taken down the columns and along the rows on every shape, on bf16 matrices past L2 from square to 100 : 1 -> docs/results/<gpu>-order.csv
	@$(PYTHON) -m lab.bench --study order --build '$(BUILD)' $(bench_gpu)

pattern-study: setup $(BUILD)/step12 ## time step 12's answer beside the bounds of its pattern (swap_down, swap_across and their 128 x 128 and 32 x 32 forms) at whole-chunk pitches near the sweep's odd matrices -> docs/results/<gpu>-pattern.csv
	@$(PYTHON) -m lab.bench --study pattern --build '$(BUILD)' $(bench_gpu)

timing-study: setup $(STEP_BINS) ## time the float32 answer (the last float32 step) with the old (write) and new (read) L2 flush -> docs/results/<gpu>-timing.csv
	@$(PYTHON) -m lab.bench --study timing --build '$(BUILD)' $(bench_gpu)

gpu-session: setup ## everything that needs the GPU: test, bench, profile, peers, reference timings, then the figures and pages -> docs/
	@$(PYTHON) -m lab.session $(BATCHES) $(if $(RERUN),--rerun '$(RERUN)')
