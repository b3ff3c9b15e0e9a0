# Benchmark sweep, plots, library comparison and the generated tables.
#
#   make bench [GPU=h200] [SHAPES="4096x4096 ..."] [STEPS="01 05"] [BENCH_ARGS="--reps 50"]
#   make bench RESUME=1        go on with a sweep that was cut short
#   make plot tables [GPU=h200]
#   make peers
#
# GPU names the result files: docs/results/<gpu>.csv and friends.  bench and
# peers default to the GPU that nvidia-smi sees ("NVIDIA H200" -> h200);
# plot and tables, which need no GPU, default to h200.

bench_comma := ,
# Steps to build and run: all of them unless STEPS names some.
BENCH_STEPS  = $(if $(STEPS),$(subst $(bench_comma), ,$(STEPS)),$(STEP_NUMS))

.PHONY: bench plot peers tables tables-check

bench: $(addprefix $(BUILD)/step,$(BENCH_STEPS)) ## run all steps over the shape sweep -> docs/results/<gpu>.csv (fails unless every check is PASS)
	@BUILD='$(BUILD)' GPU='$(GPU)' SHAPES='$(SHAPES)' STEPS='$(STEPS)' BENCH_ARGS='$(BENCH_ARGS)' RESUME='$(RESUME)' \
	  BENCH_COMMAND='make bench' bash tools/bench.sh

plot: ## draw docs/img/<gpu>-ladder and <gpu>-sizes (.svg, .png) from docs/results/<gpu>.csv (needs gnuplot)
	@GPU='$(GPU)' bash tools/plot.sh

peers: ## time PyTorch and CuPy transposes against the copy bound -> docs/results/<gpu>-peers.csv
	@python3 tools/peers.py $(if $(GPU),--gpu $(GPU))

tables: ## fill the result tables between the markers in README.md and docs/ from docs/results/
	@python3 tools/render_tables.py $(if $(GPU),--gpu $(GPU))

tables-check: ## fail if any generated table in README.md or docs/ is out of date
	@python3 tools/render_tables.py --check $(if $(GPU),--gpu $(GPU))
