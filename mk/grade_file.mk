# Grading a file from outside the tree: python3 -m lab.grade NN --file PATH and --batch DIR.
#
#   make grade-file GRADE_EX=05 GRADE_SRC=build/grade-work/alice-05/alice.cu
#
# compiles GRADE_SRC exactly as mk/exercises.mk compiles exercises/NN_name/exercise.cu
# (the same NVCCFLAGS, plus the exercise's directory on the include path for its
# given headers such as block_shape.h or tile_copy.cuh) into alice.cu.o beside it,
# and links grade_NN beside it from that object, the reference solution, the step
# and lab/grade_main.cu: the same program as build/grade_NN, with the student's
# file in place of exercises/NN_name/exercise.cu. `grade-file-object` stops after
# the object, for the checks of the compiled code that need no GPU.
#
# The grader copies the student's file into its own folder under
# build/grade-work/ (GRADE_WORK moves it: the tests give each grader run its own)
# first, so every student's objects stay apart and a file that no longer
# compiles can never leave a stale program behind.

.PHONY: grade-file grade-file-object

ifneq ($(GRADE_SRC),)
ifeq ($(call ex_dir,$(GRADE_EX)),)
  $(error GRADE_EX=$(GRADE_EX) is not an exercise number: use two digits, e.g. GRADE_EX=05)
endif
GRADE_FILE_DIR := $(patsubst %/,%,$(dir $(GRADE_SRC)))
GRADE_FILE_OBJ := $(GRADE_SRC).o
GRADE_FILE_BIN := $(GRADE_FILE_DIR)/grade_$(GRADE_EX)

$(GRADE_FILE_OBJ): $(GRADE_SRC) $(BUILD)/flags.txt
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVCCFLAGS) -I$(call ex_dir,$(GRADE_EX)) -c $< -o $@

$(GRADE_FILE_BIN): $(BUILD)/obj/lab/grade_main.$(GRADE_EX).o $(GRADE_FILE_OBJ) \
    $(BUILD)/obj/$(call sol_dir,$(GRADE_EX))/solution.cu.o \
    $(BUILD)/obj/$(call step_src,$(GRADE_EX)).nomain.o $(COMMON_LIB)
	$(link_program)

grade-file-object: $(GRADE_FILE_OBJ)
grade-file: $(GRADE_FILE_BIN)
else
grade-file grade-file-object:
	@echo "error: say which file, e.g. make grade-file GRADE_EX=05 GRADE_SRC=path/to/copy.cu (python3 -m lab.grade does this)" >&2
	@exit 2
endif
