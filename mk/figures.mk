# The figures: every picture in docs/img/, drawn by lab/figures.py (its docstring says from what).
# tests/index_maps.cu plays the kernels' index functions on the host into docs/img/index-maps.csv:
# a kernel change that moves an index makes it, and so the figures of steps 09-13, stale.

INDEX_MAPS     := $(BUILD)/tests/index_maps
INDEX_MAPS_CSV ?= docs/img/index-maps.csv
EXTRA_BINS     += $(INDEX_MAPS)

$(INDEX_MAPS): $(BUILD)/obj/tests/index_maps.cu.o $(COMMON_LIB)

# The plots follow the float32 steps, which lab.figures asks the step programs for (--describe).
.PHONY: figures figures-check
figures figures-check: export BUILD := $(BUILD)

figures: setup $(INDEX_MAPS) $(STEP_BINS) ## write docs/img/index-maps.csv, then draw docs/img/fig-*.svg and each GPU's plots
	@$(INDEX_MAPS) > $(INDEX_MAPS_CSV)
	@$(PYTHON) -m lab.figures

figures-check: setup $(INDEX_MAPS) $(STEP_BINS) ## fail if docs/img/index-maps.csv or a figure or plot differs from a fresh one
	@$(INDEX_MAPS) | cmp -s - $(INDEX_MAPS_CSV) \
	  || { echo "error: $(INDEX_MAPS_CSV) is out of date: make figures writes it" >&2; exit 1; }
	@$(PYTHON) -m lab.figures --check
