# Grading a file from outside the tree: python3 -m lab.grade NN --file PATH and --batch DIR.
#
#   make GRADE_EX=05 GRADE_SRC=build/grade-work/alice-05/alice.cu build/grade-work/alice-05/grade_05
#
# compiles GRADE_SRC as mk/exercises.mk compiles exercise.cu (plus the exercise's folder on the include
# path, for its given headers) into GRADE_SRC.o and links grade_NN beside it: build/grade_NN with the
# student's file in place of the exercise's. The grader copies each file into a fresh folder first, so
# that no stale program is ever left behind, and names these two targets (the object alone for the
# checks that need no GPU).

ifneq ($(GRADE_SRC),)
GRADE_FILE_OBJ := $(GRADE_SRC).o
GRADE_FILE_BIN := $(dir $(GRADE_SRC))grade_$(GRADE_EX)

$(GRADE_FILE_OBJ): $(GRADE_SRC) $(BUILD)/flags.txt
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVCCFLAGS) -I$(call ex_dir,$(GRADE_EX)) -c $< -o $@

$(GRADE_FILE_BIN): $(BUILD)/obj/lab/grade_main.$(GRADE_EX).o $(GRADE_FILE_OBJ) \
    $(BUILD)/obj/$(call sol_dir,$(GRADE_EX))/solution.cu.o \
    $(BUILD)/obj/$(call step_src,$(GRADE_EX)).nomain.o $(COMMON_LIB)
	$(link_program)
endif
