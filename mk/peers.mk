# The tutorial against other libraries (python3 -m lab.peers; --help there says more).
#
#   make peers [GPU=h200] [PEERS_ARGS="--shapes 8192x8192 --reps 50"] [PEERS_DTYPES=bf16]
#   make peers-lib            only build build/peers/libtutorial.so (and libcute.so where CuTe's headers are)
#   make peers-cute [CUTE_INCLUDE=DIR]   only build build/peers/libcute.so, the CuTe peer
#   make peers-profile [GPU=h200]   Nsight Compute counters of the peers that lab/profile_plan.csv names
#
# make peers runs lab.peers on float32, then on bf16 (PEERS_DTYPES: one of them, when a run must stay short;
# make peers-permute too). The answers are the steps the built programs name
# (python3 -m lab.machine asks their --describe): make peers-lib asks, then makes the library in a second
# make told PEERS_ANSWERS="14 14": the answers' files without main(), lab/peer_lib.cu and the harness.
#
# build/libcommon.a cannot go into a shared library: its objects are not
# compiled with -fPIC (the linker stops at check.c.o's reference to stderr:
# "relocation R_X86_64_PC32 ... recompile with -fPIC"). So the harness is
# compiled again, position-independent, into build/peers/libcommon_pic.a, with
# the same flags as the programs otherwise; the link takes from it only what
# the steps' launchers call.
#
# The CuTe peer's library needs CUTLASS's cute/ headers (the nvidia-cutlass wheel, or CUTE_INCLUDE):
# make peers-lib builds it only where they are found; lab.peers skips the peer where it is missing.

PEERS_STEP     := $(word 1,$(PEERS_ANSWERS))
PEERS_STEP_16  := $(word 2,$(PEERS_ANSWERS))
PEERS_DIR      := $(BUILD)/peers
PEERS_DTYPES   ?= float32 bf16
PEERS_LIB      := $(PEERS_DIR)/libtutorial.so
# One step may be both answers (step 14 takes both types): its file is compiled once.
PEERS_SRCS     := $(foreach n,$(sort $(PEERS_STEP) $(PEERS_STEP_16)),$(call step_src,$(n))) lab/peer_lib.cu
PEERS_OBJS     := $(patsubst %,$(PEERS_DIR)/obj/%.o,$(PEERS_SRCS))
PEERS_COMMON   := $(PEERS_DIR)/libcommon_pic.a
CUTE_LIB       := $(PEERS_DIR)/libcute.so
CUTE_INCLUDE   ?= $(shell $(PYTHON) -c "import importlib.util as u, pathlib; s = u.find_spec('cutlass_library'); \
                      print(pathlib.Path(s.origin).parent / 'source' / 'include' if s else '')" 2>/dev/null)
# peer_lib.cu learns which steps to wrap from PEER_STEP and PEER_STEP_16.
PEERS_DEFINES  := $(if $(PEERS_STEP),-DPEER_STEP=$(PEERS_STEP)) $(if $(PEERS_STEP_16),-DPEER_STEP_16=$(PEERS_STEP_16))

.PHONY: peers peers-lib peers-profile peers-cute peers-permute
peers peers-lib peers-profile peers-cute peers-permute: export BUILD := $(BUILD)

peers: peers-lib ## time the float32 and the bf16 answer beside cuBLAS, PyTorch, Triton, CuTe, JAX, CuPy -> docs/results/<gpu>-peers.csv, <gpu>-peers-bf16.csv
	@for dtype in $(PEERS_DTYPES); do \
	    $(PYTHON) -m lab.peers --dtype $$dtype --lib $(PEERS_LIB) $(if $(GPU),--gpu '$(GPU)') $(PEERS_ARGS) || exit; done

peers-lib: setup $(STEP_BINS) ## build build/peers/libtutorial.so: the answers' default kernels for lab/peers.py
	@answers=$$($(PYTHON) -m lab.machine) && \
	    $(MAKE) --no-print-directory PEERS_ANSWERS="$$answers" $(PEERS_LIB)
	@$(if $(wildcard $(CUTE_INCLUDE)/cute/tensor.hpp),$(MAKE) --no-print-directory peers-cute CUTE_INCLUDE='$(CUTE_INCLUDE)')

peers-cute: setup ## build build/peers/libcute.so, the CuTe peer (CUTLASS's cute/ headers: pip install nvidia-cutlass, or CUTE_INCLUDE=DIR)
	@test -f '$(CUTE_INCLUDE)/cute/tensor.hpp' || { echo "error: CuTe's headers not found (CUTE_INCLUDE='$(CUTE_INCLUDE)'):" \
	    "pip install --no-deps nvidia-cutlass==4.2.0.0 (pyproject.toml's cute extra), or make $@ CUTE_INCLUDE=<the folder holding cute/>" >&2; exit 3; }
	@$(MAKE) --no-print-directory CUTE_INCLUDE='$(CUTE_INCLUDE)' $(CUTE_LIB)

# Checks for a GPU and ncu before building anything, as make profile does.
peers-profile: setup ## Nsight Compute counters of the peers in lab/profile_plan.csv -> docs/results/<gpu>-peers-profile.csv
	@$(PYTHON) -m lab.profile check-env
	@$(MAKE) --no-print-directory peers-lib
	@$(PYTHON) -m lab.profile peers --lib $(PEERS_LIB) $(if $(GPU),--gpu '$(GPU)')

$(PEERS_LIB): $(PEERS_OBJS) $(PEERS_COMMON)
	$(call say,LINK,$@)
	$(Q)$(NVCC) -shared $(LDFLAGS) $^ $(LDLIBS) -o $@

# Step 15 as a library of its own (it compiles the capstone's API in, as step 14 does: one library cannot hold both).
PERMUTE_LIB    := $(PEERS_DIR)/libpermute.so
$(PERMUTE_LIB): $(PEERS_DIR)/obj/$(call step_src,15).o $(PEERS_DIR)/obj/steps/15_permute/library/permute_library.cu.o \
                $(PEERS_COMMON)
	$(call say,LINK,$@)
	$(Q)$(NVCC) -shared $(LDFLAGS) $^ $(LDLIBS) -o $@

peers-permute: setup $(PERMUTE_LIB) ## step 15 beside PyTorch, torch.compile, Triton and JAX on tensors -> docs/results/<gpu>-peers-permute.csv, -peers-permute-bf16.csv
	@for dtype in $(PEERS_DTYPES); do \
	    $(PYTHON) -m lab.peers_permute --dtype $$dtype --lib $(PERMUTE_LIB) $(if $(GPU),--gpu '$(GPU)') $(PEERS_ARGS) || exit; done

# The headers' own warnings are not ours (-isystem); this file's are errors, as every file's are.
$(CUTE_LIB): lab/peer_cute.cu $(BUILD)/flags.txt
	@mkdir -p $(PEERS_DIR)/obj/lab
	$(call say,NVCC,$< [shared])
	$(Q)$(NVCC) $(NVCCFLAGS) -MF $(PEERS_DIR)/obj/lab/peer_cute.cu.d --expt-relaxed-constexpr -isystem '$(CUTE_INCLUDE)' \
	    -Xcompiler -fPIC -shared $< -o $@

$(PEERS_COMMON): $(patsubst %,$(PEERS_DIR)/obj/%.o,$(COMMON_SRCS))
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The steps the library wraps, kept as flags.txt keeps the flags: a new answer
# step changes this file, and peer_lib.cu is compiled again for it.
$(PEERS_DIR)/steps.txt: FORCE
	@mkdir -p $(@D)
	@echo '$(PEERS_DEFINES)' | cmp -s - $@ || echo '$(PEERS_DEFINES)' > $@
$(PEERS_DIR)/obj/lab/peer_lib.cu.o: $(PEERS_DIR)/steps.txt

$(PEERS_DIR)/obj/%.c.o: %.c $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,CC,$< [PIC])
	$(Q)$(CC) $(CFLAGS) -fPIC -c $< -o $@

# step_defines gives each step its number and name.
$(PEERS_DIR)/obj/%.cu.o: %.cu $(BUILD)/flags.txt
	@mkdir -p $(@D)
	$(call say,NVCC,$< [PIC])
	$(Q)$(NVCC) $(NVCCFLAGS) $(call step_defines,$<) -DTRANSPOSE_NO_MAIN $(PEERS_DEFINES) \
	    -Xcompiler -fPIC -c $< -o $@

-include $(shell find $(PEERS_DIR)/obj -name '*.d' 2>/dev/null)
