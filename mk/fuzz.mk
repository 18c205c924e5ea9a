# Fuzzing (issue 10): the libFuzzer harnesses of tests/fuzz/ (clang), built by
# tests/fuzz/build.sh into $(BUILD)/tests/fuzz/ (the directory the test suites use).
#   make fuzz [FUZZ_TIME=60] [FUZZ_TARGETS="fuzz_link fuzz_elf"]
#       runs each target for FUZZ_TIME seconds in turn, its corpus growing in
#       $(BUILD)/tests/fuzz/work-<target>/, and prints executions and coverage per target.
#       A crash input lands in $(BUILD)/tests/fuzz/artifacts/: copy it into
#       tests/fuzz/regressions/ (fuzz_load) or tests/fuzz/regressions/<target>/ so that
#       `make check` replays it (suites 30-robustness and 32-fuzz).
FUZZ_TIME    ?= 60
FUZZ_TARGETS ?= fuzz_load fuzz_link fuzz_unwind fuzz_runtime fuzz_elf fuzz_readers

fuzz:
	@mkdir -p $(BUILD)/tests/fuzz
	bash tests/fuzz/run.sh $(BUILD)/tests/fuzz $(FUZZ_TIME) $(FUZZ_TARGETS)

.PHONY: fuzz
