# The write-ups' generated tables and numbers (`make help` lists the targets).
# The templates are README.md.j2, docs/**/*.md.j2 and exercises/*/README.md.j2; the numbers
# come from docs/results/ (lab/tables.py), and what a step is (its title, variants, element
# size) from its program in BUILD (--describe), so both targets build the steps first.

.PHONY: docs-tables docs-tables-check amalgamate
docs-tables docs-tables-check: export BUILD := $(BUILD)

docs-tables: setup $(STEP_BINS) ## render every *.md.j2 (README, docs/, exercises/) into the .md beside it, from docs/results/; make amalgamate
	@$(PYTHON) -m lab.amalgamate
	@$(PYTHON) -m lab.docs

docs-tables-check: setup $(STEP_BINS) ## fail if any committed .md differs from what its .md.j2 renders to, or the amalgamation is stale
	@$(PYTHON) -m lab.amalgamate --check
	@$(PYTHON) -m lab.docs --check

amalgamate: setup ## write steps/14_dispatch/transpose/transpose_kernels.cuh: the library's kernels in one header, from the steps' headers
	@$(PYTHON) -m lab.amalgamate
