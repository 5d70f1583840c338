"""tensord_fuzzer: one libFuzzer target and its committed corpus."""

def tensord_fuzzer(name, deps = [], **kwargs):
    """The fuzz target `name`, built from `name`.cc, with its corpus in corpus/`name`/.

    A normal build links replay_main: the target runs once on every corpus file (seeds and the
    inputs of crashes found earlier), as a test of `bazel test //...`. `--config=fuzz` (clang,
    ASan + UBSan) links libFuzzer instead; `make fuzz` runs those binaries.
    """
    native.cc_test(
        name = name,
        srcs = [name + ".cc"],
        deps = deps + [":fuzz_util"] + select({
            ":fuzzing": [],
            "//conditions:default": [":replay_main"],
        }),
        linkopts = select({
            ":fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        data = native.glob(["corpus/" + name + "/**"]),
        args = ["tests/fuzz/corpus/" + name],
        **kwargs
    )
