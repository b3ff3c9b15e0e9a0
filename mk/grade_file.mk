# Grading a file from outside the tree: python3 -m lab.grade NN --file PATH and --batch DIR.
#
#   make grade-file GRADE_EX=05 GRADE_SRC=build/grade-work/alice-05/alice.cu
#
# compiles GRADE_SRC as mk/exercises.mk compiles exercise.cu (plus the exercise's folder on the include
# path, for its given headers) and links grade_NN beside it: build/grade_NN with the student's file in
# place of the exercise's. `grade-file-object` stops after the object (the checks that need no GPU).
# The grader copies each file into a fresh folder first, so that no stale program is ever left behind.

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
