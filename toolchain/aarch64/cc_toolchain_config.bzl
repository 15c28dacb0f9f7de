"""cc_toolchain_config for Debian's gcc-aarch64-linux-gnu (Bazel 4.2.3): the cross
compiler of --config=aarch64 / aarch64-lse (see .bazelrc)."""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

_COMPILE = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
]
_LINK = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _impl(ctx):
    p = "/usr/bin/aarch64-linux-gnu-"
    tool_paths = [
        tool_path(name = "gcc", path = p + "gcc"),
        tool_path(name = "cpp", path = p + "cpp"),
        tool_path(name = "ld", path = p + "ld"),
        tool_path(name = "ar", path = p + "ar"),
        tool_path(name = "nm", path = p + "nm"),
        tool_path(name = "objcopy", path = p + "objcopy"),
        tool_path(name = "objdump", path = p + "objdump"),
        tool_path(name = "strip", path = p + "strip"),
        tool_path(name = "gcov", path = p + "gcov"),
        tool_path(name = "dwp", path = p + "dwp"),
    ]
    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(name = "dbg"),
        feature(name = "opt"),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                flag_set(
                    actions = _COMPILE,
                    flag_groups = [flag_group(flags = [
                        "-Wall",
                        "-fno-omit-frame-pointer",
                        # keep paths in .d files relative/clean for Bazel's include check
                        "-no-canonical-prefixes",
                        "-fno-canonical-system-headers",
                        "-Wno-builtin-macro-redefined",
                        "-D__DATE__=\"redacted\"",
                        "-D__TIMESTAMP__=\"redacted\"",
                        "-D__TIME__=\"redacted\"",
                    ])],
                ),
                flag_set(
                    actions = _COMPILE,
                    flag_groups = [flag_group(flags = ["-g", "-O0"])],
                    with_features = [with_feature_set(features = ["dbg"])],
                ),
                flag_set(
                    actions = _COMPILE,
                    flag_groups = [flag_group(flags = ["-g0", "-O2", "-DNDEBUG"])],
                    with_features = [with_feature_set(features = ["opt"])],
                ),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                flag_set(
                    actions = _LINK,
                    flag_groups = [flag_group(flags = ["-no-canonical-prefixes", "-lpthread", "-lm"])],
                ),
            ],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/lib/gcc-cross/aarch64-linux-gnu/12/include",
            "/usr/aarch64-linux-gnu/include",
            "/usr/include/aarch64-linux-gnu",  # multiarch (liburcu-dev:arm64)
            "/usr/include",
        ],
        toolchain_identifier = "aarch64-linux-gnu-gcc",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "aarch64-unknown-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "unknown",
        abi_libc_version = "unknown",
        tool_paths = tool_paths,
    )

cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {},
    provides = [CcToolchainConfigInfo],
)
