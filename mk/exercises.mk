# Exercises: the grader programs, `make grade`, `make grade-selftest` and `make reference-timings`.
#
#   exercises/NN_name/exercise.cu  the student's file (a skeleton until solved)
#   solutions/NN_name/solution.cu  the reference answer
#   build/grade_NN                 student vs reference vs step NN, one harness run
#   build/grade_NN_solution        the same, with the reference as the student
#
# python3 -m lab.grade, the one grader, drives them; docs/grading.md explains the whole thing.

EX_DIRS   := $(sort $(wildcard exercises/[0-9][0-9]_*))
EX_NUMS   := $(foreach d,$(EX_DIRS),$(firstword $(subst _, ,$(notdir $(d)))))
# An exercise can only be graded once its step exists.
EX_GRADED := $(foreach n,$(EX_NUMS),$(if $(call step_src,$(n)),$(n)))
# exercises/NN_name and solutions/NN_name for exercise NN
ex_dir     = $(wildcard exercises/$(1)_*)
sol_dir    = solutions/$(notdir $(call ex_dir,$(1)))

GRADE_BINS := $(foreach n,$(EX_GRADED),$(BUILD)/grade_$(n) $(BUILD)/grade_$(n)_solution)
EXTRA_BINS += $(GRADE_BINS)

.PHONY: grade grade-selftest reference-timings

# EX, FILE, BATCH, CSV and ONLY reach the grader through the environment, never through the shell's
# parser, so that any file name works. FILE= or BATCH= without EX= reach it as --all --file ...,
# which it refuses with one line, rather than grading the skeletons instead. GNU make can only
# exit 0, 1 or 2, so on failure one line says which of the grader's codes (0/1/2/3) it returned:
# scripts call python3 -m lab.grade to receive that code.
grade reference-timings grade-selftest: export BUILD := $(BUILD)
grade: export GRADE_ARG_EX := $(value EX)
grade: export GRADE_ARG_FILE := $(value FILE)
grade: export GRADE_ARG_BATCH := $(value BATCH)
grade: export GRADE_ARG_CSV := $(or $(value CSV),grades.csv)
grade: export GRADE_ARG_ONLY := $(value ONLY)
grade: setup ## grade exercises, four checks each (python3 -m lab.grade): make grade EX=05 [FILE=alice.cu | BATCH=dir CSV=out.csv | SOLUTION=1] [ONLY=technique | ONLY=build: no GPU], make grade (all)
	@$(PYTHON) -m lab.grade $(if $(value EX),"$$GRADE_ARG_EX",--all)$(if $(SOLUTION), --solution)$(if $(value ONLY), --"$$GRADE_ARG_ONLY"-only)$(if $(value FILE), \
	    --file "$$GRADE_ARG_FILE")$(if $(value BATCH), --batch "$$GRADE_ARG_BATCH" --csv "$$GRADE_ARG_CSV"); \
	code=$$?; [ $$code -eq 0 ] || echo "make grade: the grader exited $$code (1 a check FAILed, 2 bad command" \
	    "line or file, 3 no GPU or a machine problem); scripts call python3 -m lab.grade to receive that code" >&2; \
	exit $$code

grade-selftest: setup ## test the grader on every solution, skeleton and planted wrong answer (pytest; GPU: 10+ min)
	@$(PYTHON) -m pytest -p no:cacheprovider tests/test_grader.py --run-slow

reference-timings: setup ## time every reference solution on this GPU into its reference timings (python3 -m lab.reference)
	@$(PYTHON) -m lab.reference

# lab/grade_main.cu once for each exercise (grade_main.05.o: -DEXERCISE=05), and once more with the
# reference as the student (grade_main.05_solution.o). A static pattern, which matches only these objects,
# not the .d files that the Makefile includes.
GRADE_MAINS := $(foreach n,$(EX_GRADED),$(BUILD)/obj/lab/grade_main.$(n).o $(BUILD)/obj/lab/grade_main.$(n)_solution.o)
$(GRADE_MAINS): $(BUILD)/obj/lab/grade_main.%.o: lab/grade_main.cu $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,NVCC,$@)
	$(Q)$(NVCC) $(NVCCFLAGS) -DEXERCISE=$(firstword $(subst _, ,$*)) $(if $(findstring _solution,$*),-DGRADE_SOLUTION) \
	    -c $< -o $@

# Each exercise's two grader programs and their objects, named after its folders.
define grade_rules
$(BUILD)/grade_$(1): $(BUILD)/obj/lab/grade_main.$(1).o \
    $(BUILD)/obj/$(call ex_dir,$(1))/exercise.cu.o \
    $(BUILD)/obj/$(call sol_dir,$(1))/solution.cu.o \
    $(BUILD)/obj/$(call step_src,$(1)).nomain.o $(COMMON_LIB)
$(BUILD)/grade_$(1)_solution: $(BUILD)/obj/lab/grade_main.$(1)_solution.o \
    $(BUILD)/obj/$(call sol_dir,$(1))/solution.cu.o \
    $(BUILD)/obj/$(call step_src,$(1)).nomain.o $(COMMON_LIB)
endef
$(foreach n,$(EX_GRADED),$(eval $(call grade_rules,$(n))))

$(BUILD)/grade_%:
	$(link_program)
