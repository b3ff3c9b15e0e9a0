# Exercises: the grader programs, `make grade` and `make reference-timings`.
#
#   exercises/NN_name/exercise.cu  the student's file (a skeleton until solved)
#   solutions/NN_name/solution.cu  the reference answer
#   build/grade_NN                 student vs reference vs step NN, one harness run
#   build/grade_NN_solution        the same, with the reference as the student
#
# Each grader links the exercise, the solution, the step's own file compiled
# without its main() (the Makefile's .cu.nomain.o rule) and tools/grade_main.cu
# compiled for that exercise.  tools/grade.py, the one grader, drives them;
# docs/grading.md explains the whole thing.

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

# FILE= and BATCH= without EX= reach tools/grade.py as --all --file ..., which it
# refuses with one line, rather than grading the skeletons instead.
grade: ## grade exercises, four checks each (tools/grade.py): make grade EX=05 [FILE=alice.cu | BATCH=dir CSV=out.csv | SOLUTION=1], make grade (all)
	@BUILD='$(BUILD)' python3 tools/grade.py $(or $(EX),--all)$(if $(SOLUTION), --solution)$(if \
	    $(FILE), --file '$(FILE)')$(if $(BATCH), --batch '$(BATCH)' --csv '$(or $(CSV),grades.csv)')

grade-selftest: ## test the grader (tests/test_grader.sh): every solution passes, every skeleton and planted wrong answer fails (GPU: 10+ min)
	@BUILD='$(BUILD)' GRADER_GPU_TESTS=1 bash tests/test_grader.sh

reference-timings: ## time every reference solution on this GPU into docs/reference-timings.{csv,md}
	@BUILD='$(BUILD)' bash tools/reference_timings.sh

# tools/grade_main.cu for one exercise: $(1) is the -D flags (a canned recipe).
define compile_grade_main
@mkdir -p $(@D)
$(call say,NVCC,$@)
$(Q)$(NVCC) $(NVCCFLAGS) $(1) -c $< -o $@
endef

# Explicit rules, not a pattern: a pattern would also match the .d files
# that the Makefile includes (grade_main.05.d.o -> grade_main.05.d).
define grade_rules
$(BUILD)/grade_$(1): $(BUILD)/obj/tools/grade_main.$(1).o \
    $(BUILD)/obj/$(call ex_dir,$(1))/exercise.cu.o \
    $(BUILD)/obj/$(call sol_dir,$(1))/solution.cu.o \
    $(BUILD)/obj/$(call step_src,$(1)).nomain.o $(COMMON_LIB)
$(BUILD)/grade_$(1)_solution: $(BUILD)/obj/tools/grade_main.$(1)_solution.o \
    $(BUILD)/obj/$(call sol_dir,$(1))/solution.cu.o \
    $(BUILD)/obj/$(call step_src,$(1)).nomain.o $(COMMON_LIB)
$(BUILD)/obj/tools/grade_main.$(1).o: tools/grade_main.cu $(BUILD)/flags.txt
	$$(call compile_grade_main,-DEXERCISE=$(1))
$(BUILD)/obj/tools/grade_main.$(1)_solution.o: tools/grade_main.cu $(BUILD)/flags.txt
	$$(call compile_grade_main,-DEXERCISE=$(1) -DGRADE_SOLUTION)
endef
$(foreach n,$(EX_GRADED),$(eval $(call grade_rules,$(n))))

$(BUILD)/grade_%:
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(NVCC) $(LDFLAGS) $(filter %.o %.a,$^) $(LDLIBS) -o $@
