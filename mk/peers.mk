# The tutorial against other libraries (python3 -m lab.peers; --help there says more).
#
#   make peers [GPU=h200] [PEERS_ARGS="--shapes 8192x8192 --reps 50"]
#   make peers-lib            only build build/peers/libtutorial.so
#   make peers-profile [GPU=h200]   Nsight Compute counters of the peers that lab/profile_plan.csv names
#
# lab/peers.py times, in one Python process and on the same input tensor, the
# copy bound, the tutorial's last step, cuBLAS, PyTorch (eager and
# torch.compile), a Triton kernel, JAX and CuPy, and writes
# docs/results/<gpu>-peers.csv. It calls the last step's default kernel
# through a shared library built here:
#
#   steps/NN_name/x.cu   compiled with -DTRANSPOSE_NO_MAIN (kernels and the stepNN table, no main())
#   lab/peer_lib.cu      plain C functions over stepNN (tutorial_transpose, ...)
#   common/*.c, *.cu     the harness the step's launcher calls (cuda_fail, ...)
#
# build/libcommon.a cannot go into a shared library: its objects are not
# compiled with -fPIC (the linker stops at check.c.o's reference to stderr:
# "relocation R_X86_64_PC32 ... recompile with -fPIC"). So the harness is
# compiled again, position-independent, into build/peers/libcommon_pic.a, with
# the same flags as the programs otherwise; the link takes from it only what
# the step's launcher calls.

PEERS_STEP     := $(lastword $(STEP_NUMS))
PEERS_STEP_SRC := $(call step_src,$(PEERS_STEP))
PEERS_DIR      := $(BUILD)/peers
PEERS_LIB      := $(PEERS_DIR)/libtutorial.so
PEERS_OBJS     := $(patsubst %,$(PEERS_DIR)/obj/%.o,$(PEERS_STEP_SRC) lab/peer_lib.cu)
PEERS_COMMON   := $(PEERS_DIR)/libcommon_pic.a

.PHONY: peers peers-lib peers-profile

peers: $(PEERS_LIB) ## time the last step beside cuBLAS, PyTorch, Triton, JAX, CuPy -> docs/results/<gpu>-peers.csv
	@python3 -m lab.peers --lib $(PEERS_LIB) $(if $(GPU),--gpu '$(GPU)') $(PEERS_ARGS)

peers-lib: $(PEERS_LIB) ## build build/peers/libtutorial.so: the last step's default kernel for lab/peers.py

# Checks for a GPU and ncu before building anything, as make profile does.
peers-profile: ## Nsight Compute counters of the peers in lab/profile_plan.csv -> docs/results/<gpu>-peers-profile.csv
	@python3 -m lab.profile check-env
	@$(MAKE) --no-print-directory $(PEERS_LIB)
	@python3 -m lab.profile peers --lib $(PEERS_LIB) $(if $(GPU),--gpu '$(GPU)')

$(PEERS_LIB): $(PEERS_OBJS) $(PEERS_COMMON)
	$(call say,LINK,$@)
	$(Q)$(NVCC) -shared $(LDFLAGS) $^ $(LDLIBS) -o $@

$(PEERS_COMMON): $(patsubst %,$(PEERS_DIR)/obj/%.o,$(COMMON_SRCS))
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(PEERS_DIR)/obj/%.c.o: %.c $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,CC,$< [PIC])
	$(Q)$(CC) $(CFLAGS) -fPIC -c $< -o $@

# step_defines gives the step its number and name; peer_lib.cu learns which
# step to wrap from PEER_STEP.
$(PEERS_DIR)/obj/%.cu.o: %.cu $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,NVCC,$< [PIC])
	$(Q)$(NVCC) $(NVCCFLAGS) $(call step_defines,$<) -DTRANSPOSE_NO_MAIN -DPEER_STEP=$(PEERS_STEP) \
	    -Xcompiler -fPIC -c $< -o $@

-include $(shell find $(PEERS_DIR)/obj -name '*.d' 2>/dev/null)
