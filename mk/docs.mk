# The write-ups' generated tables and numbers.
#
#   make docs-tables          render every *.md.j2 into the *.md beside it, and make amalgamate
#   make docs-tables-check    fail if a committed *.md differs from what its *.md.j2 renders to,
#                             or the amalgamation from what its headers make
#   make amalgamate           steps/14_dispatch/transpose/transpose_kernels.cuh from the steps' headers
#
# The templates are README.md.j2, docs/**/*.md.j2 and exercises/*/README.md.j2; the
# numbers come from the committed results in docs/results/ (lab/tables.py), and what
# a step is (its title, variants, element size) from its program in BUILD (--describe),
# so both build the steps first.
# `python3 -m lab.docs --check` exits 1 for a stale file, 2 for a template error and
# 3 for a step program not built.

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
