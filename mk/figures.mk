# The figures: every picture in docs/img/.
#
#   make figures         draw the write-ups' figures and each GPU's ladder and sizes plots
#   make figures-check   fail, one line per file, if a committed figure differs from a fresh drawing
#
# lab/figures.py draws them with matplotlib: the explanatory figures from the kernels' own index
# arithmetic, the plots from docs/results/<gpu>.csv for every GPU in docs/results/gpus.csv.

.PHONY: figures figures-check

figures: setup ## draw docs/img/fig-*.svg and each GPU's <gpu>-ladder and <gpu>-sizes plots (.svg, .png) with matplotlib
	@$(PYTHON) -m lab.figures

figures-check: setup ## fail if a committed figure or plot in docs/img/ differs from what python3 -m lab.figures draws
	@$(PYTHON) -m lab.figures --check
