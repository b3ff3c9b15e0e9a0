# Benchmark sweep, plots and the generated tables.
#
#   make bench [GPU=h200] [SHAPES="4096x4096 ..."] [STEPS="01 05"] [BENCH_ARGS="--reps 50"]
#   make bench RESUME=1        go on with a sweep that was cut short
#   make plot tables [GPU=h200]
#   make narrow-study [GPU=h200]   step 12's rule on matrices narrower than a tile
#
# GPU names the result files: docs/results/<gpu>.csv and friends.  bench
# defaults to the GPU that nvidia-smi sees ("NVIDIA H200" -> h200); plot and
# tables, which need no GPU, default to h200.  SHAPES defaults to the shapes
# tagged `bench` in tests/shapes.txt, STEPS to every steps/NN_*/ directory.
# Every tool reads the CSVs by column name through tools/results.py.
# (make peers, the comparison with other libraries, is in mk/peers.mk.)

bench_comma := ,
# Steps to build and run: all of them unless STEPS names some.
BENCH_STEPS  = $(if $(STEPS),$(subst $(bench_comma), ,$(STEPS)),$(STEP_NUMS))

.PHONY: bench plot tables tables-check narrow-study

bench: $(addprefix $(BUILD)/step,$(BENCH_STEPS)) ## run all steps over the shape sweep -> docs/results/<gpu>.csv (fails unless every check is PASS)
	@BUILD='$(BUILD)' GPU='$(GPU)' SHAPES='$(SHAPES)' STEPS='$(STEPS)' BENCH_ARGS='$(BENCH_ARGS)' RESUME='$(RESUME)' \
	  BENCH_COMMAND='make bench' bash tools/bench.sh

narrow-study: $(BUILD)/step09 $(BUILD)/step11 $(BUILD)/step12 ## time step 09, step 11's chunk kernel and step 12's answer on matrices of 2-63 columns -> docs/results/<gpu>-narrow.csv
	@BUILD='$(BUILD)' GPU='$(GPU)' NARROW_COMMAND='make narrow-study' bash tools/narrow_study.sh

plot: ## draw docs/img/<gpu>-ladder and <gpu>-sizes (.svg, .png) from docs/results/<gpu>.csv (needs gnuplot)
	@GPU='$(GPU)' bash tools/plot.sh

tables: ## fill the generated blocks in README.md, docs/ and exercises/*/README.md, and steps/12_tma/answer_tuning.h, from the committed results
	@python3 tools/answer_tuning.py
	@python3 tools/render_tables.py $(if $(GPU),--gpu $(GPU))

tables-check: ## fail if any generated block in README.md, docs/ or exercises/, or steps/12_tma/answer_tuning.h, is out of date
	@python3 tools/answer_tuning.py --check
	@python3 tools/render_tables.py --check $(if $(GPU),--gpu $(GPU))
