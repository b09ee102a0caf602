#!/usr/bin/env python3
"""Checks that keep the docs true: every name the Markdown gives the reader must still
exist in the tree, so a rename or a removed option breaks a test, not a reader's trust.

Reads README.md, BENCHMARKS.md, proto/README.md, deploy/**/*.md and docs/**/*.md (never
node_modules or a build*/ folder) and reports each problem as FILE:LINE: message.

  a. Paths. A backticked token that starts with a top-level entry of the tree (proto/,
     server/, tests/, Dockerfile, ...) names a file from the root; a relative Markdown link
     names one from the .md file's folder. Either must exist (tests/bench/json_codec_bench,
     a source folder and a target its CMakeLists.txt declares, names that target's binary).
     build*/ paths are build outputs: they exist under --build-dir, or their last part is a
     CMake target (add_executable/add_library/..., or a function wrapping one) built in that
     folder (its CMakeLists.txt's, or its RUNTIME_OUTPUT_DIRECTORY), or they are a folder
     the CMake files write at the top of the build (${PROJECT_BINARY_DIR}/e2e-console): a
     fresh build passes. ../shared/ and anything else outside the root is not ours.
  b. Source names. A backticked file name without a folder (served_model.h, run.sh; .h
     .cpp .py .sh .proto .js .cmake) exists somewhere in the tree; X.pb.h, X.grpc.pb.h,
     X_pb2.py and X_pb2_grpc.py are generated from X.proto.
  c. Options. A --long-option in a shell line of a fenced block, or in inline code, belongs
     to the line's command (the first word after prompts, VAR=value, sudo/env/exec/...;
     for bash X.sh / python3 X.py the script). When that command is ours it must take the
     option: tsserve (server/config/config_option.cpp's table, CLI11 flags of
     server/config/*.cpp, --help), tsserve-client (CLI11 flags of client/**/*.cpp, --help),
     a tool whose add_executable lists a *_main.cpp (its "--x" literals), or a script of the
     tree (argparse's add_argument / quoted literals for .py; case patterns, quoted literals
     and comparisons for .sh). Inline code that starts with an option names no command: the
     option must be one of any of ours. Other commands (curl, cmake, podman, ...) are not
     checked, nor a script that hands "$@" on to another program.
  d. Identifiers. Each CamelCase name of a backticked C++/Python name (GetModelInfo,
     BatchedCall<KeepingForecastCodec>::start; MutualTls* as a prefix) occurs as a word in
     the sources (*.proto *.h *.cpp *.py *.js *.sh). Service.Method and pkg.Service/Method
     (also in fenced blocks, as grpcurl takes it) name an rpc the .proto files declare in
     that service and package; pkg.Name names something a .proto declares in pkg.

  e. Names a reader types: metrics, /v1 and /v2 routes, TSSERVE_* variables, JSON keys
     (config keys, OpenAPI fields, the keys the code reads), option values of a fixed list
     (--heads each), and quoted error messages (each must match a message the code builds).
     What each is looked up in: the comment of section e. below.
  f. Defaults. A tsserve option's default stated outside docs/configuration.md ("`--opt`
     (default N)", "`--opt VALUE` (the default)", "default A -> B", ...) is the option
     table's (tsserve-config-reference's output, or the page it generates).
  g. Benchmarks. BENCHMARKS.md is generated whole: another page cites its figures by a link
     to their section (a link's #anchor must be a heading of the .md it names), and a table
     row that restates one of its rows (same benchmark or stage label) fails as a copy.

  tests/tools/docs_check.py [--root DIR] [--build-dir DIR] [--check]
                            [--server BUILD/server/tsserve | --metrics SCRAPE]

--check (CTest docs_check): exit 1 when any problem is found. docs_check_selftest.py plants
small trees with each kind of stale statement to prove every rule can fail.
"""
import argparse
import glob
import os
import re
import sys
from collections import namedtuple

Problem = namedtuple("Problem", "path line message")

# The Markdown read: files from the root, and folders searched to any depth.
DOC_FILES = ("README.md", "BENCHMARKS.md", "proto/README.md")
DOC_FOLDERS = ("deploy", "docs")
# Copied unchanged from their upstream project: the names in them are the spec's, not ours,
# and editing them to please the check would break "copied unchanged".
EXTERNAL_DOCS = {"docs/specs/open-inference-protocol/inference_rest.md"}

SOURCE_EXTENSIONS = (".proto", ".h", ".cpp", ".py", ".js", ".sh")
BASENAME_EXTENSIONS = (".h", ".cpp", ".py", ".sh", ".proto", ".js", ".cmake")
# A token with any of these stands for many names (a glob, <name>, {a,b}, $VAR, "..."),
# not for one that could be looked up.
PLACEHOLDER = re.compile(r"[*<>{}$…]|\.\.\.")
BUILD_PATH = re.compile(r"^build[\w-]*/")

# The server's option table (each entry {"name", "Group", ...}) and its command line.
SERVER_OPTION_TABLE = "server/config/config_option.cpp"
SERVER_COMMAND_LINE_SOURCES = "server/config/*.cpp"
CLIENT_SOURCES = "client/**/*.cpp"
OPTION_TABLE_ENTRY = re.compile(r"\w+_option\(\s*\{\s*\"([a-z0-9_]+)\"")
CLI11_OPTION = re.compile(r"\badd_(?:option|flag)\w*\(\s*\"([^\"]+)\"")
CLI11_VERSION_FLAG = re.compile(r"\bset_version_flag\(\s*\"([^\"]+)\"")
CLI11_NO_HELP = re.compile(r"\bset_help_flag\(\s*(\"\")?\s*\)")
QUOTED_OPTION = re.compile(r"[\"'](--[A-Za-z0-9][\w-]*)(?=[\"'=])")
SHELL_CASE_PATTERN = re.compile(r"^\s*\(?\s*((?:--[\w-]+[=*]*\s*\|\s*)*--[\w-]+[=*]*)\s*\)", re.M)
SHELL_COMPARISON = re.compile(r"!?==?\s*[\"']?(--[A-Za-z0-9][\w-]*)")
# A line that hands the script's arguments on ("$@" outside a for loop, set -- or comment).
SHELL_FORWARDS_ARGS = re.compile(r"^(?!\s*(?:for|set|#)\b)(.*\"\$[@*]\".*)$", re.M)

# Words before a shell line's command: prompts and programs that run the next word.
PROMPTS_AND_WRAPPERS = {"$", "sudo", "env", "exec", "time", "nohup", "command"}
# Programs whose first argument is the script that is the command (bash X.sh).
INTERPRETERS = {"bash", "sh", "python3", "python", "/usr/bin/python3", "node"}
# Fenced blocks read as shell lines (no language: a command or its output).
SHELL_FENCES = {"", "sh", "bash", "shell", "console", "zsh"}
SEPARATORS = {"|", "||", "&&", ";", "&"}
LONG_OPTION = re.compile(r"^--[A-Za-z0-9][\w-]*")

# Long options of other programs that the docs name alone in inline code. Each is listed
# with its program, so nothing of ours can hide here.
EXTERNAL_OPTIONS = {
    "--no-cache",  # docker/podman build: README's image rebuild after a Debian fix
}
# Google Test's and Google Benchmark's own flags, which every test and benchmark binary
# takes (--gtest_filter, --benchmark_min_time).
FRAMEWORK_OPTION = re.compile(r"^--(?:gtest|benchmark)_")

# CamelCase names that are not ours to define: other projects' types and products.
EXTERNAL_IDENTIFIERS = {
    "ModelStreamInfer",  # Triton's streaming rpc, which README lists as not served
}
# File names of other projects that the docs compare ours with.
EXTERNAL_FILES = {
    "grpc_predict_v2.proto",  # KServe's name for what proto/inference/grpc_service.proto restates
}
# In an example, a one-letter stem or foo/bar is a placeholder, not a file (a.cpp -> b.h).
EXAMPLE_STEM = re.compile(r"^(?:[a-z]|foo|bar|baz)\.")


IDENTIFIER = r"[A-Za-z_]\w*"
# A type's or function's name: a capital first, then lower case and another capital
# (ServedModel, GRPCInferenceService, PatchTSTRunner, BM_FusedForwardAfterIdle). All-capital
# names (RESOURCE_EXHAUSTED) and plain words (Forecast) say too little to look up.
CAMEL_CASE = re.compile(r"^(?=\w*[a-z])(?=[A-Z]\w*[A-Z])[A-Z]\w*$")
# A C++ or Python name as code writes it: parts joined by :: or ., template arguments, a
# trailing () (BatchedCall<KeepingForecastCodec>::start, model::RowForecaster, Foo.bar()).
NAME_EXPRESSION = re.compile(r"^[\w.:<>,*&]+(?:\(\))?$")
# pkg.Service/Method (as gRPC names it on the wire) and Service.Method (as prose does).
FULL_RPC_NAME = re.compile(r"^([a-z][\w.]*)\.([A-Z]\w*)/([A-Z]\w*)$")
SERVICE_METHOD = re.compile(r"^(?:([a-z][\w.]*)\.([A-Z]\w*)/|([A-Z]\w*)\.)([A-Z]\w*)(?:\(\))?$")
INLINE_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
# A link's target: ](target) or ](target "title"); the [text] may start a line above.
MARKDOWN_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
LINK_DEFINITION = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\".*\")?\s*$")
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|\S+")
TRAILING_PUNCTUATION = ",.;:)]!?'\""
LEADING_PUNCTUATION = "([\"'"


def is_skipped_dir(name):
    """Build outputs, installed packages and git's own files are not the tree's sources."""
    return name in (".git", "node_modules", "__pycache__") or name.startswith("build")


def tree_files(root):
    """Every file of the tree, as paths relative to the root, skipping build outputs."""
    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not is_skipped_dir(d))
        rel = os.path.relpath(folder, root)
        out += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(out)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def doc_files(root, files):
    docs = [f for f in DOC_FILES if os.path.isfile(os.path.join(root, f))]
    for folder in DOC_FOLDERS:
        docs += [f for f in files if f.startswith(folder + os.sep) and f.endswith(".md")]
    return sorted(set(docs) - EXTERNAL_DOCS)


# --- What the tree declares --------------------------------------------------------------

def cmake_files(files):
    return [f for f in files if os.path.basename(f) == "CMakeLists.txt" or f.endswith(".cmake")]


def wrapper_functions(text):
    """CMake functions that declare a target from their first argument: name -> (prefix,
    suffix), e.g. tsserve_fuzz_target(NAME) declares fuzz_NAME."""
    wrappers = {}
    for name, arg, body in re.findall(r"function\(\s*(\w+)\s+(\w+)[^)]*\)(.*?)endfunction",
                                      text, re.S):
        if re.search(rf"add_(?:executable|library)\(\s*\$\{{{arg}\}}", body):
            wrappers[name] = ("", "")
        made_from_arg = rf"set\(\s*(\w+)\s+([\w-]*)\$\{{{arg}\}}([\w-]*)\s*\)"
        for var, prefix, suffix in re.findall(made_from_arg, body):
            if re.search(rf"add_(?:executable|library)\(\s*\$\{{{var}\}}", body):
                wrappers[name] = (prefix, suffix)
    return wrappers


CMAKE_TARGET = re.compile(
    r"\badd_(executable|library|custom_target)\(\s*([\w.+-]+)(?=[\s)])([^)]*)\)")
CMAKE_OUTPUT_DIRECTORY = re.compile(
    r"set_target_properties\(\s*([\w.+-]+)[^)]*?RUNTIME_OUTPUT_DIRECTORY\s+\"?([^\s)\"]+)")
CMakeDeclarations = namedtuple("CMakeDeclarations", "targets built_in mains outputs")


def build_folder(value, declaring_folder):
    """A RUNTIME_OUTPUT_DIRECTORY's value as a folder of the build, or None."""
    value = value.replace("${CMAKE_CURRENT_BINARY_DIR}", "${BUILD}/" + declaring_folder)
    value = re.sub(r"\$\{(?:PROJECT|CMAKE)_BINARY_DIR\}", "${BUILD}", value)
    if not value.startswith("${BUILD}") or PLACEHOLDER.search(value[len("${BUILD}"):]):
        return None
    return os.path.normpath(value[len("${BUILD}"):].lstrip("/") or ".")


def cmake_declarations(root, files):
    """What the CMake files declare: targets (name -> the source folders declaring it),
    built_in (name -> the build folders its output lands in: the declaring folder's, or
    its RUNTIME_OUTPUT_DIRECTORY), mains (an executable built from a *_main.cpp -> that
    source) and outputs (folders written at the top of the build: ${PROJECT_BINARY_DIR}/X)."""
    # Comments out: "tsserve_fuzz_target(NAME LIBRARY...)" in one is no target.
    texts = {f: re.sub(r"#[^\n]*", "", read(root, f)) for f in cmake_files(files)}
    wrappers = {}
    for text in texts.values():
        wrappers.update(wrapper_functions(text))
    declared = CMakeDeclarations({}, {}, {}, set())
    for path, text in texts.items():
        folder = os.path.dirname(path)
        names = []
        for kind, name, sources in CMAKE_TARGET.findall(text):
            names.append(name)
            for source in sources.split():
                if kind == "executable" and source.endswith("_main.cpp"):
                    declared.mains[name] = os.path.normpath(os.path.join(folder, source))
        for function, (prefix, suffix) in wrappers.items():
            names += [prefix + n + suffix
                      for n in re.findall(rf"(?<![\w$]){function}\(\s*([\w.+-]+)(?=[\s)])", text)]
        for name in names:
            declared.targets.setdefault(name, set()).add(folder)
            declared.built_in.setdefault(name, set()).add(os.path.normpath(folder or "."))
        for name, value in CMAKE_OUTPUT_DIRECTORY.findall(text):
            moved = build_folder(value, folder)
            if moved:
                declared.built_in[name] = {moved}
        declared.outputs.update(
            re.findall(r"\$\{(?:PROJECT|CMAKE)_BINARY_DIR\}/([\w.+-]+)", text))
    return declared


def proto_declarations(root, files):
    """From every .proto of the tree: service name -> (package, set of rpc names), and
    package -> the names it declares (services, messages, enums)."""
    services, declared = {}, {}
    for path in (f for f in files if f.endswith(".proto")):
        text = read(root, path)
        package = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M)
        declared.setdefault(package and package.group(1), set()).update(
            re.findall(r"\b(?:service|message|enum)\s+(\w+)", text))
        for match in re.finditer(r"\bservice\s+(\w+)\s*\{", text):
            body, depth = [], 1
            for char in text[match.end():]:
                depth += {"{": 1, "}": -1}.get(char, 0)
                if depth == 0:
                    break
                body.append(char)
            rpcs = set(re.findall(r"\brpc\s+(\w+)", "".join(body)))
            known = services.setdefault(match.group(1), (package and package.group(1), set()))
            known[1].update(rpcs)
    return services, declared


def source_words(root, files):
    words = set()
    for path in (f for f in files if f.endswith(SOURCE_EXTENSIONS)):
        words.update(re.findall(IDENTIFIER, read(root, path)))
    return words


def cli11_options(text):
    options = set()
    for names in CLI11_OPTION.findall(text):
        options.update(n.strip() for n in names.split(",") if n.strip().startswith("--"))
    for names in CLI11_VERSION_FLAG.findall(text):
        options.update(n.strip() for n in names.split(",") if n.strip().startswith("--"))
    return options


def cli11_program_options(root, pattern):
    """The CLI11 flags of the files matching `pattern`, with CLI11's own --help unless a
    file turns it off."""
    texts = [read(root, os.path.relpath(p, root))
             for p in glob.glob(os.path.join(root, pattern), recursive=True)]
    options = set().union(*(cli11_options(t) for t in texts)) if texts else set()
    if texts and not any(CLI11_NO_HELP.search(t) for t in texts):
        options.add("--help")
    return options


def server_options(root):
    options = cli11_program_options(root, SERVER_COMMAND_LINE_SOURCES)
    if os.path.isfile(os.path.join(root, SERVER_OPTION_TABLE)):
        for name in OPTION_TABLE_ENTRY.findall(read(root, SERVER_OPTION_TABLE)):
            options.add("--" + name.replace("_", "-"))
    return options


def python_script_options(text):
    """argparse's options (and its --help), or None for a script that reads sys.argv."""
    if "add_argument(" not in text:
        return None
    options = {"--help"}
    for call in re.findall(r"add_argument\(([^)]*)", text):
        options.update(QUOTED_OPTION.findall(call))
    return options


def shell_script_options(path, texts, seen):
    """What a shell script parses: case patterns, quoted literals and comparisons; with the
    options of the script of ours it hands "$@" on to. None when it hands them to another
    program and parses none itself."""
    text = texts[path]
    options = set(QUOTED_OPTION.findall(text)) | set(SHELL_COMPARISON.findall(text))
    for pattern in SHELL_CASE_PATTERN.findall(text):
        options.update(re.findall(r"--[\w-]+", pattern))
    for line in SHELL_FORWARDS_ARGS.findall(text):
        targets = [t for t in re.findall(r"[\w./$\"{}-]+\.(?:py|sh)\b", line)]
        named = [p for t in targets for p in texts
                 if os.path.basename(p) == os.path.basename(t) and p not in seen]
        if named:
            forwarded = [script_options(p, texts, seen | {path}) for p in named]
            if any(f is None for f in forwarded):
                return None
            options = options.union(*forwarded)
        elif not SHELL_CASE_PATTERN.search(text):
            return None  # "$@" goes to another program: its options, not knowable here
    return options


def script_options(path, texts, seen=frozenset()):
    """The long options the script `path` parses, or None when the check cannot know them.
    `texts`: every script's text by path."""
    if path.endswith(".py"):
        return python_script_options(texts[path])
    if path.endswith(".sh"):
        return shell_script_options(path, texts, seen)
    return None  # .js and others: not parsed


class Tree:
    """What the docs may name: files, targets, commands and their options, identifiers."""

    def __init__(self, root, build_dir):
        self.root = root
        self.build_dir = build_dir
        self.files = tree_files(root)
        self.top_level = {e for e in os.listdir(root) if not is_skipped_dir(e)}
        self.basenames = {os.path.basename(f) for f in self.files}
        self.cmake = cmake_declarations(root, self.files)
        self.services, self.proto_names = proto_declarations(root, self.files)
        self.words = source_words(root, self.files)
        self.commands = {"tsserve": server_options(root),
                         "tsserve-client": cli11_program_options(root, CLIENT_SOURCES)}
        for name, source in self.cmake.mains.items():
            if os.path.isfile(os.path.join(root, source)):
                self.commands[name] = set(QUOTED_OPTION.findall(read(root, source)))
        texts = {f: read(root, f) for f in self.files if f.endswith((".py", ".sh"))}
        # path -> the options it parses (None: not known)
        self.scripts = {path: script_options(path, texts) for path in texts}
        self.names = None  # set by main: Names(self)
        self.defaults, self.defaults_from = option_defaults(root, build_dir)
        self.all_options = set().union(*self.commands.values(),
                                       *(o for o in self.scripts.values() if o))

    def exists(self, rel):
        return os.path.exists(os.path.join(self.root, rel))

    def scripts_named(self, token):
        """The scripts a command word names: its path from the root, or every script of
        that base name."""
        path = os.path.normpath(token)
        if path in self.scripts:
            return [path]
        return [p for p in self.scripts if os.path.basename(p) == os.path.basename(path)]


# --- Reading Markdown --------------------------------------------------------------------

def markdown_parts(text):
    """Yields (line number, kind, text): kind is 'fence:LANG' for a line of a fenced block,
    'prose' otherwise."""
    fence, language = None, ""
    for number, line in enumerate(text.split("\n"), 1):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence, language = opening.group(1), opening.group(2).lower()
            continue
        if fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
                continue
            yield number, "fence:" + language, line
            continue
        yield number, "prose", line


def inline_spans(line):
    return [m.group(2).strip() for m in INLINE_CODE.finditer(line)]


def link_targets(line):
    prose = INLINE_CODE.sub("", line)
    targets = MARKDOWN_LINK.findall(prose)
    definition = LINK_DEFINITION.match(prose)
    if definition:
        targets.append(definition.group(1))
    return targets


def clean_token(token):
    token = token.lstrip(LEADING_PUNCTUATION).rstrip(TRAILING_PUNCTUATION)
    return re.sub(r":\d+(?::\d+)?$", "", token)  # file.cpp:42 names file.cpp


# --- a. paths ----------------------------------------------------------------------------

def check_build_path(tree, token):
    """build/server/tsserve: in the build folder, or where its CMake target lands;
    build/e2e-console: a folder the CMake files write at the top of the build."""
    parts = os.path.normpath(token).split(os.sep)
    if len(parts) < 2:
        return None  # the build folder itself
    has_build = tree.build_dir and os.path.isdir(tree.build_dir)
    if has_build and os.path.exists(os.path.join(tree.build_dir, *parts[1:])):
        return None
    folder, name = os.path.join(".", *parts[1:-1]), parts[-1]
    built_in = tree.cmake.built_in.get(name)
    if built_in and os.path.normpath(folder) in built_in:
        return None
    if len(parts) == 2 and name in tree.cmake.outputs:
        return None
    where = f"not in {tree.build_dir}; " if has_build else ""
    if built_in:
        places = ", ".join(sorted(os.path.normpath(os.path.join(parts[0], f)) for f in built_in))
        return f"build path '{token}': {where}target {name} is built in {places}"
    return f"build path '{token}': {where}no CMake target or build folder '{name}'"


def check_root_path(tree, token):
    """A problem with a token that may be a path from the root, or None."""
    token = clean_token(token).split("#")[0]
    if not token or PLACEHOLDER.search(token) or "://" in token:
        return None
    if BUILD_PATH.match(token):
        return check_build_path(tree, token)
    first = token.split("/")[0]
    if first not in tree.top_level:
        return check_unknown_top_level(tree, token)
    if first == token and first not in tree.files:
        return None  # not a path of ours (a bare folder name is a word, e.g. `model`)
    if tree.exists(token):
        return None
    folder, name = os.path.split(os.path.normpath(token))
    if folder in tree.cmake.targets.get(name, ()):
        return None  # tests/bench/json_codec_bench: the target that folder builds
    return f"no such file or folder '{token}'"


# Paths of other projects the docs name: TSLib's model files (models/PatchTST.py).
EXTERNAL_PATH_PREFIXES = ("models/",)
PATH_EXTENSIONS = (".md", ".py", ".sh", ".cpp", ".h", ".cc", ".proto", ".js", ".json", ".yaml",
                   ".yml", ".txt", ".cmake", ".csv", ".pt", ".safetensors", ".supp", ".html",
                   ".css", ".png", ".npy")


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


def check_unknown_top_level(tree, token):
    """A path from the root whose first folder is not one of the tree (a renamed deploy/, a
    clients/... typo): reported when it reads as a path of ours, i.e. it names a file (an
    extension of the tree's kinds) or a folder (a trailing /), its first part is a near
    miss of a top-level entry, or what follows the first part exists under another one."""
    parts = [p for p in token.split("/") if p]
    if (token.startswith("/") or len(parts) < 2 or not re.fullmatch(r"[a-z][\w.-]*", parts[0])
            or "." in parts[0] or token.startswith(EXTERNAL_PATH_PREFIXES)):
        return None
    proto = generated_from(parts[-1])
    if proto:  # tsserve/v1/x.pb.h: generated from tsserve/v1/x.proto
        token = "/".join(parts[:-1] + [proto])
    relative = os.sep + os.path.normpath(token.rstrip("/"))
    if any((os.sep + f).endswith(relative) or (os.sep + f).startswith(relative + os.sep)
           or (os.sep + os.path.dirname(f)).endswith(relative) for f in tree.files):
        return None  # a path from a folder of ours (tsserve/v1/x.proto under proto/)
    near = [top for top in sorted(tree.top_level)
            if os.path.isdir(os.path.join(tree.root, top)) and edit_distance(parts[0], top) <= 1]
    if not (near or parts[-1].endswith(PATH_EXTENSIONS)):
        return None
    hint = f" (did you mean {near[0]}/?)" if near else ""
    return f"no top-level folder '{parts[0]}' for '{token}'{hint}"


def heading_anchors(text):
    """The anchors a Markdown page has: its headings' GitHub slugs (lower case, punctuation
    but - and _ dropped, spaces to -, a repeated slug numbered -1, -2, ...) and its
    explicit <a id="..."> / <a name="...">."""
    anchors, seen, fence = set(), {}, None
    for line in text.split("\n"):
        opening = FENCE.match(line)
        if opening and (fence is None or line.strip().startswith(fence)):
            fence = None if fence else opening.group(1)
            continue
        if fence:
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            anchors.add(slug if count == 0 else f"{slug}-{count}")
        anchors.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
    return anchors


def check_link(tree, doc, target):
    anchor = target.split("#", 1)[1] if "#" in target else None
    target = target.split("#")[0].split("?")[0]
    if (not target or re.match(r"^[a-z][\w+.-]*:", target) or target.startswith("/")
            or PLACEHOLDER.search(target)):
        return None  # a URL, an anchor in the page, or an absolute path
    path = os.path.normpath(os.path.join(os.path.dirname(doc), target))
    if path.startswith(".."):
        return None  # outside the repository (../shared/...): not ours to check
    if BUILD_PATH.match(path):
        return check_build_path(tree, path)
    if not tree.exists(path):
        return f"link to '{target}': no such file or folder '{path}'"
    if anchor and path.endswith(".md") and os.path.isfile(os.path.join(tree.root, path)):
        if anchor not in heading_anchors(read(tree.root, path)):
            return f"link to '{target}#{anchor}': {path} has no heading or anchor '{anchor}'"
    return None


# --- b. source names ---------------------------------------------------------------------

def generated_from(basename):
    """The .proto a generated file's name comes from, or None."""
    match = re.match(r"^(\w+?)(?:\.grpc)?\.pb\.(?:h|cc)$|^(\w+?)_pb2(?:_grpc)?\.py$", basename)
    return match and (match.group(1) or match.group(2)) + ".proto"


def check_basename(tree, token):
    token = clean_token(token)
    if "/" in token or PLACEHOLDER.search(token):
        return None
    if not re.match(r"^[\w+-][\w.+-]*\.(" + "|".join(e[1:] for e in BASENAME_EXTENSIONS) + ")$",
                    token):
        return None
    if token in tree.basenames or generated_from(token) in tree.basenames:
        return None
    if token in EXTERNAL_FILES or EXAMPLE_STEM.match(token):
        return None
    return f"no file named '{token}' in the tree"


# --- c. options --------------------------------------------------------------------------

def shell_tokens(text):
    """Tokens of a shell line, without quotes and with a trailing ';' as a separator; a
    '#' token and what follows is a comment."""
    tokens = []
    for raw in TOKEN.findall(text):
        if raw.startswith("#"):
            break
        if raw[0] in "\"'" and raw[-1] == raw[0] and len(raw) > 1:
            raw = raw[1:-1]
        if raw.endswith(";") and raw != ";":
            tokens += [raw[:-1], ";"]
        else:
            tokens.append(raw)
    return tokens


def commands_of(tokens):
    """Splits tokens into commands at |, &&, ; ..."""
    command = []
    for token in tokens:
        if token in SEPARATORS:
            yield command
            command = []
        else:
            command.append(token)
    yield command


def command_word(tokens):
    """(index of the word naming the command, that word) or (None, None) when the tokens
    start with an option; wrappers, prompts and VAR=value are skipped, and an interpreter
    gives way to its script."""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in PROMPTS_AND_WRAPPERS or re.match(r"^\w+=", token):
            i += 1
        elif token.startswith("-") and i > 0 and tokens[i - 1] in PROMPTS_AND_WRAPPERS:
            i += 1  # sudo -E, env -i
        else:
            break
    if i >= len(tokens) or tokens[i].startswith("-"):
        return None, None
    word = tokens[i]
    if os.path.basename(word) in INTERPRETERS:
        j = i + 1
        while j < len(tokens) and tokens[j].startswith("-"):
            if tokens[j] in ("-m", "-c", "-e"):
                return i, word  # a module or inline code: no script of ours
            j += 1
        if j < len(tokens):
            return j, tokens[j]
    return i, word


def command_name(word):
    """How a problem names the command: a program by its name (build/server/tsserve is
    tsserve), a script as the docs wrote it."""
    name = os.path.basename(word)
    return word if name.endswith((".py", ".sh")) else name


def options_of_command(tree, word):
    """The options of the command `word` names, or None when it is not ours (or its
    options cannot be known)."""
    if PLACEHOLDER.search(word):
        return None
    name = os.path.basename(word[2:] if word.startswith("./") else word)
    if name in tree.commands:
        return tree.commands[name]
    if name.endswith((".py", ".sh")):
        scripts = tree.scripts_named(word)
        known = [tree.scripts[s] for s in scripts]
        if scripts and all(k is not None for k in known):
            return set().union(*known)
    return None


def option_name(token):
    match = LONG_OPTION.match(token.strip(LEADING_PUNCTUATION))
    if not match or PLACEHOLDER.search(token.split("=")[0]):
        return None
    return match.group(0)


def check_command_options(tree, tokens, inline):
    """Problems with the options of each command in `tokens` (each a (token, line))."""
    problems = []
    for command in commands_of(tokens):
        words = [t for t, _ in command]
        if "--" in words:  # what follows a bare -- is an argument, not an option
            command = command[:words.index("--")]
            words = words[:words.index("--")]
        start, word = command_word(words)
        if word is None:
            if not inline:
                continue  # a help listing or a continuation: no command to judge by
            known, owner = tree.all_options | set(EXTERNAL_OPTIONS), "any of our commands"
            start = -1
        else:
            known, owner = options_of_command(tree, word), command_name(word)
            if known is None:
                continue
        for token, line in command[start + 1:]:
            option = option_name(token)
            if option and option not in known and not FRAMEWORK_OPTION.match(option):
                problems.append((line, f"unknown option {option} of {owner}"))
    return problems


def fenced_shell_lines(parts):
    """Joins a fenced shell block's lines that end with a backslash: yields a list of
    (token, line number) per logical line."""
    pending = []
    for number, kind, text in parts:
        if kind.split(":", 1)[1] not in SHELL_FENCES:
            continue
        stripped = text.rstrip()
        continued = stripped.endswith("\\")
        pending += [(t, number) for t in shell_tokens(stripped.rstrip("\\"))]
        if not continued:
            yield pending
            pending = []
    if pending:
        yield pending


# --- d. identifiers and RPCs -------------------------------------------------------------

def check_service_method(tree, span):
    """pkg.Service/Method and Service.Method: the service declares that rpc. Outside the
    .proto files, Name.Name (a test's Suite.Name, a class's method) names two words of the
    sources, unless the second is an rpc: then the first is a stale service name."""
    match = SERVICE_METHOD.match(span)
    if not match:
        return None
    package, full_service, short_service, method = match.groups()
    service = full_service or short_service
    if service not in tree.services:
        owners = sorted(s for s, (_, rpcs) in tree.services.items() if method in rpcs)
        if package or owners:
            where = f" (rpc {method} is in {', '.join(owners)})" if owners else ""
            return f"'{span}': no service {service} in the .proto files{where}"
        missing = [n for n in (service, method) if n not in tree.words]
        return missing and f"'{span}': {missing[0]} does not occur in the sources"
    declared_package, rpcs = tree.services[service]
    if package and package != declared_package:
        return f"'{span}': service {service} is in package {declared_package}, not {package}"
    if method not in rpcs:
        return f"'{span}': service {service} has no rpc {method}"
    return None


def check_identifier(tree, name):
    if CAMEL_CASE.match(name) and name not in tree.words and name not in EXTERNAL_IDENTIFIERS:
        return f"identifier '{name}' does not occur in the sources"
    return None


def check_proto_name(tree, span):
    """pkg.Name, when pkg is a package of the .proto files: Name is declared in it."""
    package, _, name = span.rpartition(".")
    names = tree.proto_names.get(package)
    if names is not None and name[:1].isupper() and name not in names:
        return f"'{span}': package {package} declares no {name}"
    return None


def check_name_prefix(tree, prefix):
    """`MutualTls*`, `Suite.Test...`: some word of the sources starts with the prefix."""
    if not CAMEL_CASE.match(prefix) or any(w.startswith(prefix) for w in tree.words):
        return None
    return f"no identifier of the sources starts with '{prefix}'"


def check_identifiers(tree, span):
    """Problems with the names an inline span gives: an rpc, or a C++/Python name whose
    CamelCase parts must occur in the sources. A trailing * or ... names a family of
    names (MutualTls*, Suite.Test...) by what they start with."""
    span = span.strip("\"'").replace(", ", ",")
    if SERVICE_METHOD.match(span):
        return [check_service_method(tree, span)]
    family = re.match(r"^(.*?)(?:\*|\.\.\.|…)$", span)
    if family:
        span = family.group(1)
    if not NAME_EXPRESSION.match(span) or not re.search("[A-Za-z]", span):
        return []
    names = re.findall(IDENTIFIER, span)
    if family:
        return ([check_identifier(tree, name) for name in names[:-1]] +
                [check_name_prefix(tree, names[-1])])
    return [check_proto_name(tree, span)] + [check_identifier(tree, name) for name in names]



# --- e. names a reader types: metrics, routes, variables, config keys, JSON fields -------
#
# Each is looked up in what the code declares, so that a doc naming one that does not exist
# (renamed, removed, mistyped) fails:
#   metrics      tsserve_* names: the string literals of server/**; a histogram's or a
#                summary's series add _bucket/_sum/_count. With --server BINARY (CTest
#                docs_check_metrics), the names of a scrape of that server driven through a
#                forecast with intervals, ReportActuals, Observe and a failed load; with
#                --metrics FILE, those of a scrape taken elsewhere. Names written without
#                tsserve_ (a | metric | table's first column, a `*_total`) count too.
#   routes       /v1/... and /v2/... paths: with --server, the routes the running server's
#                router lists in its 404 answers and the paths of its /openapi.json, and a
#                GET of the path must be answered by a route, not by the router's 404 (a
#                route listed but no longer served fails); without one, the same listings
#                read from their sources (server/http/oip_rest_routes.cpp,
#                forecast_json_routes.cpp) and docs/api/openapi.json.
#   variables    TSSERVE_*: one per option of the table (TSSERVE_ + the name in capitals),
#                and those the sources, CMake files, scripts and deploy/ files spell out.
#   JSON keys    "key": in JSON blocks, shell blocks (python3 -c one-liners building
#                bodies) and inline code: an option of the table (a config key), a property
#                of docs/api/openapi.json, or a string the server or client code spells
#                (the readers' keys: "inputs", "max_batch_rows", ...).
#   values       --option VALUE where the option accepts a fixed list (the table's one_of,
#                CLI11's IsMember): VALUE is one of it.
#   errors       an error message quoted in inline code (field: text, or right after
#                "error", "message", "refused", "printed as", "logs"), or shown as a plain
#                block after a paragraph that speaks of an error, message or refusal (its
#                first line): it must be a message the server, client or model code
#                builds. The code's messages are read as templates: the string literals of
#                one expression (joined by + or <<) with each value between them a slot; a
#                quoted message must match one template whole (its numbers and "(...)" fill
#                slots of up to three words; a trailing ... or … quotes a prefix, a leading
#                "Forecast failed: CODE: " a wrapper). With --server, a quote that a request
#                makes (LIVE_MESSAGES: a short series, a wrong variable count, an unknown /v2
#                input, a checkpoint that does not fit its config, tsserve-client's wrapper
#                and CSV refusal) is sent to the driven server with the quote's figures and
#                must be what it answers; a run that sent none fails (proved nothing).

METRIC_NAME = re.compile(r"(?<![\w/.-])(tsserve_[a-z0-9_]+)(?![\w.(/-])")
METRIC_SUFFIXES = ("", "_bucket", "_sum", "_count")
ROUTE_LIST_SOURCES = ("server/http/oip_rest_routes.cpp", "server/http/forecast_json_routes.cpp")
OPENAPI = "docs/api/openapi.json"
ENV_VARIABLE = re.compile(r"\bTSSERVE_[A-Z0-9_]*[A-Z0-9]\b")
ROUTE_IN_TEXT = re.compile(r"(?:^|[\s`(\"'=]|localhost:\d+|:\d+|\]|\$\w+|\}|https?://[\w.-]+(?::\d+)?)"
                           r"(/v[12](?:/[^\s`\"'),;]*)?)")
JSON_KEY = re.compile(r"\"([A-Za-z_][\w.-]*)\"\s*:(?!:)")
STRING_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
QUOTED_ERROR_CONTEXT = re.compile(
    r"(?:error|message|refused|refuses|refusal|printed as|logs|fails with|answers?)\W{0,3}"
    r"(?:\w+\W+){0,4}$", re.I)
FIELD_MESSAGE = re.compile(r"^(?:[A-Z][\w ]* failed: [A-Z_]+: )?[a-z_][\w.\[\]'-]*: \S")
MESSAGE_VALUE = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?(?![\w])")


def openapi_names(root):
    """(paths, property names) of docs/api/openapi.json."""
    path = os.path.join(root, OPENAPI)
    if not os.path.isfile(path):
        return [], set()
    import json
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    names = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    names.update(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(document)
    return list(document.get("paths", {})), names


def route_pattern(listed):
    """A route as the code lists it (/v2/models/M[/versions/V][/ready|/infer],
    /v2/repository/models/M/load|unload) or as OpenAPI does (/v1/models/{model}) -> regex."""
    text = re.sub(r"\{\w+\}", "\0", listed)
    out, i = "", 0
    for token in re.findall(r"\[|\]|\||/|[^\[\]|/]+", text):
        if token == "[":
            out += "(?:"
        elif token == "]":
            out += ")?"
        elif token in ("|", "/"):
            out += token
        elif token == "\0" or re.fullmatch(r"[A-Z]", token):
            out += "[^/]+"
        else:
            out += re.escape(token.replace("\0", "X"))
    # a|b inside one segment: (?:a|b); a group's /x|/y is an alternation already
    out = re.sub(r"(?<=/)([\w.-]+(?:\|[\w.-]+)+)(?=$|/|\))", r"(?:\1)", out)
    return re.compile(out + "/?$")


def listed_routes(root):
    """The routes the code lists in its 404 answers, and OpenAPI's paths."""
    routes = set()
    for source in ROUTE_LIST_SOURCES:
        if not os.path.isfile(os.path.join(root, source)):
            continue
        text = "\n".join(literal_expressions(read(root, source)))
        for listing in re.findall(r"(?:serves|answers on) ([^()]*?/v[12][^()]*?)(?: \(|\"|$)", text):
            routes.update(r.strip() for r in listing.split(", ") if r.strip().startswith("/"))
        routes.update(re.findall(r"(?<![\w/])(/v[12](?:/[\w\[\]|./-]*)?)(?![\w])", text))
    paths, _ = openapi_names(root)
    routes.update(paths)
    return sorted(routes)


def literal_expressions(text):
    """Each run of adjacent C++ string literals, joined ("a" "b" -> ab)."""
    return ["".join(STRING_LITERAL.findall(m.group(0)))
            for m in re.finditer(r'(?:"(?:[^"\\\n]|\\.)*"\s*)+', text)]


def message_templates(text):
    """The messages one C++/Python file builds: each expression's string literals in order,
    with a slot ("\\0") for each value between two of them or a {} of a format string."""
    templates = []
    literals = list(re.finditer(r'(?<![\w\'])"((?:[^"\\\n]|\\.)*)"', text))
    current, previous_end, last = None, None, ""
    for m in literals:
        gap = text[previous_end:m.start()] if previous_end is not None else None
        body = m.group(1).replace('\\"', '"').replace("\\n", " ").replace("\\\\", "\\")
        body = re.sub(r"\{[^{}]*\}|%[-\d.]*[sdfgzul]+", "\0", body)
        if current is not None and gap is not None and re.fullmatch(r"\s*:\s*", gap):
            current = current[:len(current) - len(last)] + "\0"  # c ? "a" : "b": a value
            last = "\0"
            previous_end = m.end()
            continue
        last = body
        if current is not None and gap is not None and not gap.strip():
            current += body  # "a" "b"
        elif (current is not None and len(gap) <= 160 and ";" not in gap and "{" not in gap
              and "}" not in gap and re.search(r"\+|<<|%|\.format\(", gap)):
            current += "\0" + body
        else:
            if current is not None:
                templates.append(current)
            current = body
        previous_end = m.end()
    if current is not None:
        templates.append(current)
    return [t for t in templates if len(t.replace("\0", "").strip()) >= 6]


SLOT = r"(?:[^\s;]+(?: [^\s;]+){0,2})"


def template_regex(template, partial, open_end=False):
    """A template as a regex: a slot takes up to three words; any message may start with
    a slot (a field name the caller puts first) and end with one. partial: a prefix of it."""
    atoms = [SLOT + "?"]
    for piece in re.split(r"(\0)", template):
        if piece == "\0":
            atoms.append(SLOT + "?")
        else:
            atoms += [re.escape(w) for w in re.findall(r"\s+|[^\s]+", piece)]
    if open_end:  # what follows is another message's: no slot, no end
        return re.compile("".join(atoms))
    atoms.append(SLOT + "?")
    if not partial:
        return re.compile("".join(atoms) + r"\s*$")
    nested = ""
    for atom in reversed(atoms):
        nested = f"(?:{atom}{nested})?" if nested else f"(?:{atom})?"
    return re.compile(nested + r"\s*$")


def code_files(files):
    """The sources that build messages and read keys: every C++ and Python file outside
    tests/, docs/ and the build (server, client, model, csv, tools)."""
    return [f for f in files if f.endswith((".cpp", ".h", ".py", ".js"))
            and not f.startswith(("tests/", "docs/")) and "node_modules" not in f]


class Messages:
    """The messages the server and client code build, matched as templates."""

    def __init__(self, root, files):
        self.templates = []
        for path in code_files(files):
            self.templates += message_templates(read(root, path))
        self.templates = sorted(set(self.templates))
        self._compiled = {}

    def _regex(self, template, partial):
        key = (template, partial)
        if key not in self._compiled:
            try:
                self._compiled[key] = template_regex(template, partial)
            except (re.error, RecursionError):
                self._compiled[key] = None
        return self._compiled[key]

    def produced(self, message, depth=0):
        message = message.replace("…", "...").strip()
        partial = message.endswith("...")
        if partial:
            message = message[:-3].rstrip()
        candidates = [message]
        if partial and " " in message:
            candidates.append(message.rsplit(" ", 1)[0])  # its last word may be cut
        wrapped = re.match(r"^(?:[A-Za-z-]+: )?[A-Z][\w ]* failed: [A-Z_]+: (.*)$", message)
        if wrapped:
            candidates.append(wrapped.group(1))
        suffix = "..." if partial else ""
        for text in candidates:
            words = [w for w in re.findall(r"[A-Za-z_]{4,}", text)]
            for template in self.templates:
                flat = template.replace("\0", " ")
                if words and not any(w in flat for w in words):
                    continue
                regex = self._regex(template, partial)
                if regex is not None and regex.match(text):
                    return True
                # One expression's message, then another's appended ("...; " + more()).
                if depth == 0 and re.search(r"[;:,] $", template):
                    whole = template_regex(template, False, open_end=True).match(text)
                    if whole and whole.end() < len(text) and \
                            self.produced(text[whole.end():] + suffix, depth + 1):
                        return True
        return False


def option_values(root):
    """command -> {--option -> the values it accepts}, where the code fixes them: tsserve's
    table (one_of, with the named lists of server/config/*.h), tsserve-client's CLI11
    IsMember."""
    values, client = {}, {}
    constants = {}
    for header in glob.glob(os.path.join(root, "server/config/*.h")):
        for name, body in re.findall(r"(k\w+)\s*=\s*\{([^}]*)\}", read(root, os.path.relpath(header, root))):
            constants[name] = re.findall(r'"([^"]*)"', body)
    table = os.path.join(root, SERVER_OPTION_TABLE)
    if os.path.isfile(table):
        for entry in re.split(r"options\.push_back\(", read(root, SERVER_OPTION_TABLE))[1:]:
            name = OPTION_TABLE_ENTRY.search(entry)
            choice = re.search(r"one_of\((?:with_empty\((\w+)\)|\{([^}]*)\})", entry)
            if name and choice:
                listed = constants.get(choice.group(1), []) if choice.group(1) else \
                    re.findall(r'"([^"]*)"', choice.group(2))
                values["--" + name.group(1).replace("_", "-")] = set(listed)
    for source in glob.glob(os.path.join(root, CLIENT_SOURCES), recursive=True):
        text = read(root, os.path.relpath(source, root))
        for option, listed in re.findall(
                r'add_option\(\s*"([^"]+)"[^;]*?IsMember\(\{([^}]*)\}', text, re.S):
            for name in option.split(","):
                if name.strip().startswith("--"):
                    client.setdefault(name.strip(), set()).update(re.findall(r'"([^"]*)"', listed))
    return {"tsserve": values, "tsserve-client": client}


class Names:
    """What the code declares that a reader may type."""

    def __init__(self, tree, metrics_scrape=None):
        root, files = tree.root, tree.files
        self.metrics = set()
        if metrics_scrape:
            with open(metrics_scrape, encoding="utf-8") as f:
                for line in f:
                    name = re.match(r"^(?:# (?:HELP|TYPE) )?(tsserve_[a-z0-9_]+)", line)
                    if name:
                        self.metrics.add(name.group(1))
            self.metrics_from = metrics_scrape
        else:
            for path in files:
                if path.startswith("server/") and path.endswith((".cpp", ".h")):
                    for literal in STRING_LITERAL.findall(read(root, path)):
                        if re.fullmatch(r"tsserve_[a-z0-9_]+", literal):
                            self.metrics.add(literal)
            self.metrics_from = "the server's sources"
        self.metrics = {m + s for m in self.metrics for s in METRIC_SUFFIXES}
        # tsserve_* names that are no metric: CMake targets and functions, files.
        self.not_metrics = set(tree.cmake.targets) | {
            os.path.splitext(os.path.basename(f))[0] for f in files}
        for path in cmake_files(files):
            self.not_metrics.update(re.findall(r"\b(?:function|macro)\(\s*(\w+)", read(root, path)))
        self.routes = listed_routes(root)
        self.route_patterns = [route_pattern(r) for r in self.routes]
        self.variables = set()
        if os.path.isfile(os.path.join(root, SERVER_OPTION_TABLE)):
            self.variables.update("TSSERVE_" + n.upper()
                                  for n in OPTION_TABLE_ENTRY.findall(read(root, SERVER_OPTION_TABLE)))
        for path in files:
            if (path.startswith(("server/", "client/", "deploy/", "tests/", "cmake/"))
                    and path.endswith((".cpp", ".h", ".py", ".sh", ".txt", ".cmake", ".yaml",
                                       ".yml", ".json", ".js"))) or path in ("Dockerfile", "CMakeLists.txt"):
                self.variables.update(ENV_VARIABLE.findall(read(root, path)))
        _, self.openapi_fields = openapi_names(root)
        self.config_keys = set(OPTION_TABLE_ENTRY.findall(read(root, SERVER_OPTION_TABLE))) \
            if os.path.isfile(os.path.join(root, SERVER_OPTION_TABLE)) else set()
        self.code_strings = set()
        for path in code_files(files):
                self.code_strings.update(
                    s for s in STRING_LITERAL.findall(read(root, path)) if re.fullmatch(r"[\w.-]+", s))
        self.option_values = option_values(root)
        self.messages = Messages(root, files)
        self.server = None  # a DrivenServer (--server): use_server
        self.routes_from = ", ".join(ROUTE_LIST_SOURCES) + f"'s listings and {OPENAPI}"

    def use_server(self, server):
        """Names from the running `server` (a DrivenServer) instead of the sources: the
        routes its router lists and serves, and the refusals it answers."""
        self.server = server
        self.routes = server.served_routes()
        self.route_patterns = [route_pattern(r) for r in self.routes]
        self.routes_from = "the driven server's 404 listings and /openapi.json"

    def route_exists(self, path):
        path = path.split("?")[0].split("#")[0].rstrip(".:")
        # Placeholders (<model>, {model}, $MODEL, ${MODEL}) stand for one segment each.
        path = re.sub(r"<[^>]+>|\{[^}]+\}|\$\{?\w+\}?", "X", path)
        # A doc's a|b in the last part names two routes; a trailing / names a prefix of one.
        head, _, last = path.rpartition("/")
        variants = [f"{head}/{choice}" for choice in last.split("|")] if "|" in last else [path]
        if path.endswith("/"):
            listed = [re.sub(r"\{\w+\}|(?<=/)[A-Z](?=/|\[|$)", "X", r) for r in self.routes]
            return any(r.startswith(path) for r in listed)
        listed = all(any(p.match(v) for p in self.route_patterns) for v in variants)
        # With a running server, its router must also take each path (a GET of it is not
        # answered "is not served"), so a listing that outlived its route fails too.
        return listed and (self.server is None or all(self.server.serves(v) for v in variants))


def check_metric(names, token):
    match = METRIC_NAME.fullmatch(clean_token(token).split("{")[0])
    if not match:
        return None
    name = match.group(1)
    if name in names.metrics or name in names.not_metrics:
        return None
    return f"metric '{name}' is not one of {names.metrics_from}"


# The statuses the server answers for each gRPC code (server/httpd/http_status.cpp's
# http_status_of): a quoted "Forecast failed: CODE: message" (the clients' wrapper) must
# name a code that the HTTP status of the same refusal stands for.
CODES_OF_STATUS = {400: {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE"},
                   401: {"UNAUTHENTICATED"}, 403: {"PERMISSION_DENIED"}, 404: {"NOT_FOUND"},
                   409: {"ALREADY_EXISTS", "ABORTED"}, 429: {"RESOURCE_EXHAUSTED"},
                   499: {"CANCELLED"}, 501: {"UNIMPLEMENTED"}, 503: {"UNAVAILABLE"},
                   504: {"DEADLINE_EXCEEDED"}}
CLIENT_WRAPPER = re.compile(r"^(?:[A-Za-z-]+: )?[A-Z][\w ]* failed: ([A-Z_]+): (.*)$")
# The models of the driven server's repository: name -> (config stem, checkpoint stem,
# config fields changed) from model/default/; None: a file that is no checkpoint.
DRIVEN_MODELS = {
    "patchtst-etth1": ("patchtst_etth1", "patchtst_etth1", {}),
    "itransformer-etth1": ("itransformer_etth1", "itransformer_etth1", {}),
    "broken": ("patchtst_etth1", None, {}),  # model_load_failures_total
    # The load refusals models.md quotes: a PatchTST config on the iTransformer checkpoint,
    # and one whose seq_len (96) gives other shapes than the checkpoint's (336).
    "family-mismatch": ("patchtst_etth1", "itransformer_etth1", {}),
    "shape-mismatch": ("patchtst_etth1", "patchtst_etth1", {"seq_len": 96}),
}


class DrivenServer:
    """The tsserve `binary` on a model repository of the bundled models (DRIVEN_MODELS:
    PatchTST and iTransformer, a version that is no checkpoint, two whose checkpoint and
    config disagree), loopback ports 0; up from `with` to its end (then SIGTERM). It
    answers what the docs name: its metrics once driven through every feature, its routes
    (its router's own listing in its 404 answers, its /openapi.json, and a probe of each
    path), and the refusals the docs quote, to the requests that make them."""

    def __init__(self, binary, root, client=None):
        self.binary, self.root, self.client = binary, root, client
        self.server = self.repository = None
        self._probed, self._answers = {}, {}
        self.messages_checked = 0

    def __enter__(self):
        import json
        import shutil
        import subprocess
        import tempfile
        self.repository = tempfile.mkdtemp(prefix="docs-check-repository-")
        bundled = os.path.join(self.root, "model", "default")
        for name, (config_stem, checkpoint_stem, changed) in DRIVEN_MODELS.items():
            version = os.path.join(self.repository, name, "1")
            os.makedirs(version)
            with open(os.path.join(bundled, config_stem + ".json"), encoding="utf-8") as f:
                config = dict(json.load(f), name=name, **changed)
            with open(os.path.join(version, "config.json"), "w", encoding="utf-8") as f:
                json.dump(config, f)
            if checkpoint_stem:
                shutil.copyfile(os.path.join(bundled, checkpoint_stem + ".pt"),
                                os.path.join(version, "model.pt"))
            else:  # a file that is no checkpoint: its load fails
                with open(os.path.join(version, "model.pt"), "wb") as f:
                    f.write(b"not a checkpoint" * 64)
        self.server = subprocess.Popen(
            [self.binary, "--grpc-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0",
             "--metrics-address", "127.0.0.1:0", "--model-repository", self.repository],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            ready = self.server.stdout.readline()
            self.ports = dict(re.findall(r"(\w+_port)=(\d+)", ready))
            if "http_port" not in self.ports:
                raise RuntimeError(f"{self.binary} did not report its ports: {ready!r}")
            self.http = f"http://127.0.0.1:{self.ports['http_port']}"
            info = self.call_json("/v1/models/patchtst-etth1")
            self.seq_len = info["seq_len"]
            self.columns = info.get("scaler_columns") or [f"v{i}" for i in range(info["enc_in"])]
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *_):
        import shutil
        import signal
        import subprocess
        if self.server is not None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.server.kill()
        if self.repository:
            shutil.rmtree(self.repository, ignore_errors=True)

    def call(self, path, body=None, method=None):
        """(HTTP status, body text) of one call; an error status is an answer, not raised."""
        import json
        import urllib.error
        import urllib.request
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.http + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def call_json(self, path, body=None, allowed=(200,)):
        import json
        status, text = self.call(path, body)
        if status not in allowed:
            raise RuntimeError(f"{path}: HTTP {status}: {text[:300]!r}")
        return json.loads(text) if status == 200 else None

    def error_of(self, path, body):
        """(HTTP status, the refusal's message) of a call that must be refused."""
        import json
        status, text = self.call(path, body)
        if status == 200:
            return status, None
        try:
            return status, json.loads(text).get("error", text)
        except ValueError:
            return status, text

    def drive_and_scrape(self):
        """Drives the server through what makes every metric family appear (a forecast with
        intervals kept under a key, actuals reported for it, a live series observed with
        forecasts and then checked, a /v2 infer, a refused call) and answers its /metrics."""
        import urllib.request
        model, seq_len, columns = "patchtst-etth1", self.seq_len, self.columns
        start = 1_700_000_000

        def window(first, count):
            return {c: [10.0 + i + ((first + t) % 24) / 10 for t in range(count)]
                    for i, c in enumerate(columns)}
        stamps = [start + 3600 * t for t in range(seq_len)]
        call = self.call_json
        call(f"/v1/models/{model}/forecast", {"series": window(0, seq_len), "timestamps": stamps,
                                              "intervals": [0.8], "series_key": "docs-check"})
        after = [start + 3600 * (seq_len + t) for t in range(4)]
        call("/v1/actuals", {"series_key": "docs-check", "timestamps": after,
                             "actuals": window(seq_len, 4)})
        call("/v1/accuracy")
        observe = "/v1/series/docs-check-live/observe"
        call(observe, {"timestamps": stamps, "values": window(0, seq_len), "forecast": True,
                       "model": model})
        call(observe, {"timestamps": after, "values": window(seq_len, 4), "forecast": True})
        call(f"/v2/models/{model}/infer", {"inputs": [{
            "name": "series", "datatype": "FP32", "shape": [1, seq_len, len(columns)],
            "data": [v for t in range(seq_len) for v in (window(0, seq_len)[c][t] for c in columns)]}]})
        call(f"/v1/models/{model}/forecast", {"series": {"x": [1.0]}}, allowed=(400,))
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ports['metrics_port']}/metrics",
                                    timeout=30) as answer:
            return answer.read().decode()

    # --- routes: what the router answers ---

    def served_routes(self):
        """The routes as the server lists them: its 404 answers under /v1 and /v2 (the
        router's own listing of what it serves) and the paths of its /openapi.json."""
        import json
        routes = set()
        for prefix in ("/v1", "/v2"):
            status, message = self.error_of(prefix + "/docs-check-no-such-route", None)
            listing = re.search(r"serves (.*?)(?: \(see [^)]*\))?$", message or "")
            if status != 404 or not listing:
                raise RuntimeError(f"{prefix}/...: no route listing in the 404 answer "
                                   f"(HTTP {status}: {message!r})")
            routes.update(r.strip() for r in listing.group(1).split(", ") if r.strip())
        status, text = self.call("/openapi.json")
        if status != 200:
            raise RuntimeError(f"/openapi.json: HTTP {status}")
        routes.update(json.loads(text).get("paths", {}))
        return sorted(routes)

    def serves(self, path):
        """Whether the router takes `path` (placeholders written X): a GET of it is answered
        by a route (its data, a wrong method, an unknown model, ...), not by the router's
        404 'the path: "..." is not served'. GET changes nothing: every route that acts
        takes POST."""
        if path not in self._probed:
            status, message = self.error_of(path, None)
            # The router's own 404 (forecast_json_routes.cpp, oip_rest_routes.cpp), not a
            # route's (model "M" is not served: a route that took the path).
            self._probed[path] = not (status == 404 and (message or "").startswith(
                f'the path: "{path}" is not served'))
        return self._probed[path]

    # --- quoted refusals: what the server answers to the request that makes them ---

    def load_refusal(self, model):
        """The reason the repository gives for `model`'s failed load, from its checkpoint
        on (the version folder before it is this run's)."""
        import json
        import time
        deadline = time.monotonic() + 60  # a load still under way has no reason yet
        while True:
            status, text = self.call("/v2/repository/index", {})
            entry = next((e for e in (json.loads(text) if status == 200 else [])
                          if e.get("name") == model), None)
            reason = entry.get("reason", "") if entry else ""
            if reason or (entry and entry.get("state") == "READY") or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if not reason:
            return status, None
        return status, reason[reason.find("checkpoint "):] if "checkpoint " in reason else reason

    def answer_to(self, quote):
        """(what the request was, HTTP status, the server's message) for a quoted refusal
        that a request makes (LIVE_MESSAGES), or None when none does (matched to the code's
        literals only)."""
        for pattern, how, request in LIVE_MESSAGES:
            match = re.match(pattern, quote)
            if match:
                key = (pattern, match.group(0))
                if key not in self._answers:
                    self._answers[key] = (how.format(*match.groups()),) + request(self, match)
                return self._answers[key]
        return None


def _short_series(server, match):
    points = int(match.group(1))
    return server.error_of("/v1/models/patchtst-etth1/forecast",
                           {"series": {c: [1.0] * points for c in server.columns}})


def _variable_count(server, match):
    count, points = int(match.group(1)), server.seq_len + 8
    series = {f"{c}{i}": [1.0] * points for i, c in enumerate((server.columns * 4)[:count])}
    return server.error_of("/v1/models/itransformer-etth1/forecast",
                           {"series": series,
                            "timestamps": [1_700_000_000 + 3600 * t for t in range(points)]})


def run_client(server, name, cell=None, *options):
    """(how it ended, its last line of stderr without "tsserve-client: ") of tsserve-client
    forecast on a CSV file `name` (400 rows of the model's columns after a date column;
    `cell`: (line, column, token) written into it) against the driven server's gRPC port
    and patchtst-etth1; (None, None) without a tsserve-client in the build."""
    import shutil
    import subprocess
    import tempfile
    if not server.client:
        return None, None
    folder = tempfile.mkdtemp(prefix="docs-check-csv-")
    try:
        rows = [["date"] + server.columns]
        rows += [[f"2016-07-{1 + t // 24:02d} {t % 24:02d}:00:00"]
                 + [f"{1.0 + v + (t % 24) / 10}" for v in range(len(server.columns))]
                 for t in range(400)]
        if cell:
            line, column, token = cell
            if column in server.columns and 2 <= line <= len(rows):
                rows[line - 1][1 + server.columns.index(column)] = token
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write("\n".join(",".join(r) for r in rows) + "\n")
        done = subprocess.run([server.client, "forecast", name, "--target",
                               f"127.0.0.1:{server.ports['grpc_port']}", "--model",
                               "patchtst-etth1", *options], cwd=folder,
                              capture_output=True, text=True, timeout=60)
        last = done.stderr.strip().split("\n")[-1] if done.stderr.strip() else ""
        return f"exit {done.returncode}", (re.sub(r"^tsserve-client: ", "", last)
                                           if done.returncode != 0 and last else None)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _client_csv_refusal(server, match):
    name, line, column, token = match.groups()
    return run_client(server, name, (int(line), column, token))


def _client_short_series(server, match):
    """tsserve-client forecast --points N: the server refuses the short series over gRPC
    and the client prints its wrapper; over HTTP without a client in the build."""
    how, message = run_client(server, "data.csv", None, "--points", match.group(1))
    if how is None:
        return server.error_of("/v1/models/patchtst-etth1/forecast",
                               {"series": {c: [1.0] * int(match.group(1)) for c in server.columns}})
    return how, message


def _unknown_input(server, match):
    rows, columns = server.seq_len, len(server.columns)
    return server.error_of("/v2/models/patchtst-etth1/infer", {"inputs": [{
        "name": match.group(1), "datatype": "FP32", "shape": [1, rows, columns],
        "data": [0.0] * (rows * columns)}]})


# The quoted refusals a request makes, each sent to the driven server with the quote's own
# figures (a series of the 95 points quoted, an input of the name quoted), and the quote
# compared with what the server answered: whole, or up to its trailing "..."; a client's
# "Forecast failed: CODE: " must name the code of the answer's HTTP status. Each entry: a
# regex the quote (unwrapped) starts with, the request in words, and the request.
#
# tsserve-client's CSV refusal ("data.csv: line 391, column 'MULL': 'oops' is not a finite
# number", clients.md) is its reader's, before any request: tsserve-client (--build-dir's)
# is run on such a file against the driven server.
#
# Matched to the code's literals only (Messages), because no request to a running server
# makes them: the drain's refusals and log lines ("draining: ...", "stopped (drain timeout
# passed)", operations.md, RELIABILITY.md) exist only while SIGTERM's drain runs with calls
# queued (tests/reliability/load/drain.py and the e2e drain tests send those).
LIVE_MESSAGES = (
    (r"(?:tsserve-client: )?Forecast failed: [A-Z_]+: series: each variable has (\d+) points",
     "tsserve-client forecast --points {} (gRPC)", _client_short_series),
    (r"series: each variable has (\d+) points",
     "a /v1 forecast of patchtst-etth1 with {} points per variable", _short_series),
    (r"series: (\d+) variables \(",
     "a /v1 forecast of itransformer-etth1 with {} variables", _variable_count),
    (r"inputs\[0\]: unknown input \"(\w+)\"",
     "a /v2 infer of patchtst-etth1 with one input named {}", _unknown_input),
    (r"([\w.-]+\.csv): line (\d+), column '(\w+)': '([^']*)'",
     "tsserve-client forecast of {0} with '{3}' at line {1}, column {2}", _client_csv_refusal),
    (r"checkpoint \S+: its keys are iTransformer's",
     "the load of a PatchTST config on the iTransformer checkpoint",
     lambda server, _: server.load_refusal("family-mismatch")),
    (r"checkpoint \S+: key '[\w.]+' has shape",
     "the load of the PatchTST checkpoint under a config of seq_len 96",
     lambda server, _: server.load_refusal("shape-mismatch")),
)


def same_message(quote, status, answer):
    """Whether the quoted `quote` is what the server answered (`answer`, with HTTP
    `status`, or how tsserve-client ended: then `answer` is what it printed, wrapper and
    all): the same text, or its start where the quote ends with "..."; the names of a
    checkpoint and its config file are the example's own; a client's wrapper names a code of
    the status."""
    def flat(text):
        text = re.sub(r"\s+", " ", text.replace("…", "...")).strip()
        return re.sub(r"(checkpoint|model config) \S+:", r"\1 FILE:", text)
    quoted = flat(quote)
    wrapped = CLIENT_WRAPPER.match(quoted) if not isinstance(status, str) else None
    if wrapped:
        if wrapped.group(1) not in CODES_OF_STATUS.get(status, ()):
            return False
        quoted = wrapped.group(2)
    if quoted.endswith("..."):
        return flat(answer).startswith(quoted[:-3].rstrip())
    return flat(answer) == quoted


def live_message_problem(server, quote):
    """A problem with a quoted refusal that a request makes and the server answers
    otherwise, or None (also for a quote no request makes: see LIVE_MESSAGES)."""
    if server is None:
        return None
    flat = re.sub(r"\s+", " ", quote).strip()
    wrapped = CLIENT_WRAPPER.match(flat)
    # The quote whole (a client's message, wrapper and all), else what the wrapper wraps.
    answered = server.answer_to(flat) or (wrapped and server.answer_to(wrapped.group(2)))
    if not answered:
        return None
    how, status, answer = answered
    if status is None:  # a client's message and no tsserve-client built: not checked
        return None
    server.messages_checked += 1
    ended = status if isinstance(status, str) else f"HTTP {status}"
    if answer is None:
        return f"quoted error message '{quote[:120]}': {how} was not refused ({ended})"
    if same_message(quote, status, answer):
        return None
    return (f"quoted error message '{quote[:120]}' is not what the server answers to {how}: "
            f"{ended} '{answer[:300]}'")


def unprefixed_metric_problems(names, parts):
    """Metric names the docs write without tsserve_ (operations.md: "each prefixed
    tsserve_"): the first column of a table headed | metric |, and a backticked *_total."""
    found, in_table = [], False
    for number, kind, text in parts:
        if kind != "prose":
            in_table = False
            continue
        cells = [c.strip() for c in text.strip().strip("|").split("|")] if text.lstrip().startswith("|") else None
        if cells is None:
            in_table = False
        elif cells[0].lower() == "metric":
            in_table = True
            continue
        candidates = []
        if in_table and cells:
            candidates += inline_spans(cells[0])
        candidates += [s for s in inline_spans(text) if re.fullmatch(r"[a-z][a-z0-9_]*_total", s)]
        for span in candidates:
            name = span.split("{")[0]
            if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or name.startswith("tsserve_"):
                continue
            if "tsserve_" + name not in names.metrics:
                found.append((number, f"metric 'tsserve_{name}' (written '{name}') is not one of "
                                      f"{names.metrics_from}"))
    return found


def metric_problems(names, number, text):
    found = []
    for name in METRIC_NAME.findall(text):
        if name not in names.metrics and name not in names.not_metrics:
            found.append((number, f"metric '{name}' is not one of {names.metrics_from}"))
    return found


def route_problems(names, number, text):
    found = []
    for path in ROUTE_IN_TEXT.findall(text):
        path = path.rstrip(TRAILING_PUNCTUATION)
        if path in ("/v1", "/v2") or path.endswith("..."):
            continue
        if not names.route_exists(path):
            found.append((number, f"route '{path}' is not served (routes: {names.routes_from})"))
    return found


def variable_problems(names, number, text):
    return [(number, f"variable '{v}' is read by nothing (no option of the table, no source)")
            for v in ENV_VARIABLE.findall(text)
            if v not in names.variables and not v.endswith("_") and v != "TSSERVE_"]


def json_key_problems(names, number, text):
    found = []
    for key in JSON_KEY.findall(text):
        if (key in names.config_keys or key in names.openapi_fields or key in names.code_strings
                or PLACEHOLDER.search(key) or re.fullmatch(r"[A-Z0-9_]+", key)):
            continue  # a column of the data ("OT": [...]), not a key of ours
        found.append((number, f"JSON key '{key}' is no config key (option table), no field of "
                              f"{OPENAPI} and no key the server or client code reads"))
    return found


def option_value_problems(names, tokens, inline=False):
    """--option VALUE / --option=VALUE where the command's option takes a fixed list (the
    command as check_command_options finds it; inline code without one: any of ours)."""
    found = []
    for command in commands_of(tokens):
        words = [t for t, _ in command]
        _, word = command_word(words)
        program = word and os.path.basename(word[2:] if word.startswith("./") else word)
        if program in names.option_values:
            found += option_value_problems_of(names.option_values[program], command)
        elif word is None and inline:
            for table in names.option_values.values():
                found += option_value_problems_of(table, command)
    return found


def option_value_problems_of(table, tokens):
    found = []
    for i, (token, line) in enumerate(tokens):
        option, _, value = token.partition("=")
        if option not in table:
            continue
        if not value and i + 1 < len(tokens):
            value = tokens[i + 1][0]
        if not value or value.startswith("-") or PLACEHOLDER.search(value) or value.isupper() \
                or "|" in value:
            continue
        allowed = table[option]
        if value not in allowed:
            found.append((line, f"{option} {value}: not a value {option} takes "
                                f"({', '.join(sorted(v for v in allowed if v))})"))
    return found


def quoted_messages(text):
    """(span, line offset) of inline code in `text` (a paragraph, lines joined) that quotes
    an error message."""
    out = []
    for m in re.finditer(r"(`+)([^`]+?)\1", text):
        span = re.sub(r"\s+", " ", m.group(2)).strip()
        if len(span.split()) < 4 or span.startswith(("-", "$", "{", "[")) or "=" in span.split()[0]:
            continue
        before = text[max(0, m.start() - 60):m.start()]
        if FIELD_MESSAGE.match(span) or QUOTED_ERROR_CONTEXT.search(before):
            if re.search(r"[a-z]{3,} [a-z]{2,}", span):
                out.append((span, text[:m.start()].count("\n")))
    return out


def message_problems(names, parts):
    """Quoted error messages of a doc's prose, paragraph by paragraph (a span may wrap)."""
    found, paragraph, start = [], [], None

    def flush():
        if paragraph:
            for span, offset in quoted_messages("\n".join(paragraph)):
                if not names.messages.produced(span):
                    found.append((start + offset,
                                  f"quoted error message '{span}' is built by no message of "
                                  "the server's or client's code"))
                else:
                    found.append((start + offset, live_message_problem(names.server, span)))
    block, block_start, last_prose = [], None, ""
    for number, kind, text in parts:
        if kind.startswith("fence:") and kind.split(":", 1)[1] in ("", "text"):
            if block_start is None:
                block_start = number
                # A block shown as the message itself: the paragraph before it says so.
                quoting = bool(re.search(r"\b(?:error|message|refused|refuses)\b", last_prose))
            if quoting:
                block.append(text.strip())
            continue
        if block and quoting:
            # Its first line must begin a message; later lines may be context the message
            # takes from elsewhere (a config's summary), or further messages.
            message = block[0] + (" ..." if len(block) > 1 and not block[0].endswith("...") else "")
            if not names.messages.produced(message):
                found.append((block_start, f"quoted error message '{message[:120]}' is built by "
                                           "no message of the server's or client's code"))
            else:  # the server's answer: the block whole, its lines one message
                found.append((block_start, live_message_problem(names.server, " ".join(block))))
        block, block_start = [], None
        if kind == "prose" and text.strip():
            last_prose = " ".join(paragraph[-2:] + [text])
        if kind != "prose" or not text.strip():
            flush()
            paragraph, start = [], None
            continue
        if start is None:
            start = number
        paragraph.append(text)
    flush()
    return found

# --- one document ------------------------------------------------------------------------

def prose_problems(tree, doc, number, text):
    """(line, message) for a line outside fenced blocks: its links and inline code."""
    found = [(number, check_link(tree, doc, target)) for target in link_targets(text)]
    for span in inline_spans(text):
        for token in span.split():
            found += [(number, check_root_path(tree, piece)) for piece in token.split("=")]
            found.append((number, check_basename(tree, token)))
        found += [(number, message) for message in check_identifiers(tree, span)]
        tokens = [(t, number) for t in shell_tokens(span)]
        found += check_command_options(tree, tokens, inline=True)
    return found


def fenced_problems(tree, number, language, text):
    """(line, message) for a line of a fenced block: its paths, and a grpcurl line's
    pkg.Service/Method (its options are judged per command, in fenced_shell_lines)."""
    found = []
    for token in shell_tokens(text) if language in SHELL_FENCES else text.split():
        found += [(number, check_root_path(tree, piece)) for piece in token.split("=")]
        if FULL_RPC_NAME.match(clean_token(token)):
            found.append((number, check_service_method(tree, clean_token(token))))
    return found


def name_problems(names, number, kind, text):
    """(line, message) for the names a line gives: metrics, routes, variables, JSON keys
    (in inline code for prose; the whole line in a fenced block), option values inline."""
    found = []
    if kind == "prose":
        for span in inline_spans(text):
            found += metric_problems(names, number, span)
            found += route_problems(names, number, span)
            found += variable_problems(names, number, span)
            found += json_key_problems(names, number, span)
            found += option_value_problems(names, [(t, number) for t in shell_tokens(span)],
                                           inline=True)
        prose = INLINE_CODE.sub(" ", text)
        found += variable_problems(names, number, prose)
        found += [p for p in metric_problems(names, number, prose) if "_" in p[1]]
    else:
        language = kind.split(":", 1)[1]
        found += metric_problems(names, number, text)
        found += route_problems(names, number, text)
        found += variable_problems(names, number, text)
        if language in ("json", "jsonc") or language in SHELL_FENCES or language == "python":
            found += json_key_problems(names, number, text)
    return found


def check_doc(tree, doc):
    parts = list(markdown_parts(read(tree.root, doc)))
    found = []
    for number, kind, text in parts:
        if kind == "prose":
            found += prose_problems(tree, doc, number, text)
        else:
            found += fenced_problems(tree, number, kind.split(":", 1)[1], text)
        if tree.names:
            found += name_problems(tree.names, number, kind, text)
    for tokens in fenced_shell_lines(p for p in parts if p[1] != "prose"):
        found += check_command_options(tree, tokens, inline=False)
        if tree.names:
            found += option_value_problems(tree.names, tokens)
    if tree.defaults and doc != CONFIGURATION_PAGE:
        found += paragraph_default_problems(tree.defaults, tree.defaults_from, parts)
    if tree.names:
        found += message_problems(tree.names, parts)
        found += unprefixed_metric_problems(tree.names, parts)
    return sorted({Problem(doc, line, message) for line, message in found if message}
                  | set(copied_benchmark_problems(tree.root, doc)))


# --- f. defaults quoted outside the option table's page ----------------------------------
#
# docs/configuration.md is tsserve-config-reference's output (the option table; the test
# docs_configuration_current keeps the page equal to it). Anywhere else in the docs, a
# statement of a tsserve option's default is compared with that table: "`--opt` (default
# N)", "`--opt` seconds (default N; ...)", "`--opt` default A -> B" (a change: B is now the
# default), "`--opt VALUE` (the default)", "`--a X` and `--b Y` (the defaults)" and "`--opt`
# (off by default)", "`TSSERVE_X`; 0 = off, the default" (a paragraph's lines joined: a
# statement may wrap). The table comes from the generator in --build-dir when it is built,
# else from the page.
CONFIGURATION_PAGE = "docs/configuration.md"
CONFIG_REFERENCE = "server/config/tsserve-config-reference"
OPTION_SPAN = re.compile(r"`(--[a-z][\w-]*|TSSERVE_[A-Z0-9_]+)(?:[ =]([^`\s]+))?`")
DEFAULT_AFTER = re.compile(r"^[^`;.()]{0,25}?\(?\bdefaults?(?: to| is)?:?\s+`?([^\s`;,)]+)`?"
                           r"(?:\s*->\s*`?([^\s`;,)]+)`?)?")
# "`TSSERVE_X`; 0 = off, the default": the value named before ", the default".
VALUE_IS_DEFAULT_AFTER = re.compile(r"^[;,:]?\s*`?([^\s`;,]+)`? = [\w\s]{1,20}, the default\b")
THE_DEFAULT_AFTER = re.compile(r"^\s*(?:and\s+`--[^`]+`\s*)?\((?:the|its) defaults?\b")
OFF_BY_DEFAULT_AFTER = re.compile(r"^\s*\(off by default\)")
OFF_VALUES = {"0", "false", "(none)", "", "off"}


def option_defaults(root, build_dir):
    """(--flag -> its default as the table writes it, where from), or ({}, None)."""
    import subprocess
    generator = build_dir and os.path.join(build_dir, CONFIG_REFERENCE)
    if generator and os.access(generator, os.X_OK):
        text = subprocess.run([generator], capture_output=True, text=True, check=True).stdout
        source = "the option table (tsserve-config-reference)"
    elif os.path.isfile(os.path.join(root, CONFIGURATION_PAGE)):
        text, source = read(root, CONFIGURATION_PAGE), f"the option table ({CONFIGURATION_PAGE})"
    else:
        return {}, None
    defaults, column = {}, None
    for line in text.split("\n"):
        cells = ([c.strip() for c in line.strip().strip("|").split("|")]
                 if line.startswith("|") else [])
        if not cells:
            column = None
        elif "Default" in cells and cells[0] == "Flag":
            column = cells.index("Default")
        elif column is not None and len(cells) > column:
            flag = re.match(r"`(--[\w-]+)`", cells[0])
            if flag:
                defaults[flag.group(1)] = cells[column].strip("`")
    return defaults, source


def default_value(text):
    """A default as compared: quotes and backticks off, a number as a float."""
    text = text.strip("`").strip('"')
    try:
        return float(text)
    except ValueError:
        return text.lower()


def default_problems(defaults, source, number, text):
    """(line, message) for each statement of a tsserve option's default in prose `text`
    that the option table contradicts; `number`: the line, or a function of an offset in
    `text` to its line (a paragraph's lines joined)."""
    found = []
    for m in OPTION_SPAN.finditer(text):
        option, value = m.group(1), m.group(2)
        if option.startswith("TSSERVE_"):  # the option's variable: the same default
            option = "--" + option[len("TSSERVE_"):].lower().replace("_", "-")
        if option not in defaults:
            continue  # another program's option (tsserve-client's --target, a tool's)
        after = text[m.end():m.end() + 80]
        table = defaults[option]
        number_at = number(m.start()) if callable(number) else number
        stated = DEFAULT_AFTER.match(after) or VALUE_IS_DEFAULT_AFTER.match(after)
        if stated:
            said = stated.group(2) if stated.re is DEFAULT_AFTER and stated.group(2) \
                else stated.group(1)
            if default_value(said) != default_value(table):
                found.append((number_at, f"{option}: the docs say default {said}, {source} says "
                                      f"{table}"))
        elif value and THE_DEFAULT_AFTER.match(after):
            if default_value(value) != default_value(table):
                found.append((number_at, f"{option} {value} is called the default; {source} "
                                      f"says {table}"))
        elif OFF_BY_DEFAULT_AFTER.match(after):
            if default_value(table) not in {default_value(v) for v in OFF_VALUES}:
                found.append((number_at, f"{option} is called off by default; {source} says "
                                      f"{table}"))
    return found


def paragraph_default_problems(defaults, source, parts):
    """default_problems over each paragraph of prose (a statement may wrap a line)."""
    found, lines = [], []

    def flush():
        if lines:
            text, starts = "", []
            for number, line in lines:
                starts.append((len(text), number))
                text += line + " "
            line_of = lambda offset: max(n for at, n in starts if at <= offset)
            found.extend(default_problems(defaults, source, line_of, text))
            lines.clear()
    for number, kind, text in parts:
        if kind != "prose" or not text.strip():
            flush()
        else:
            lines.append((number, text))
    flush()
    return found


BENCHMARKS = "BENCHMARKS.md"
BENCHMARK_GENERATOR = "tests/bench/run_benchmarks.py"


def benchmarks_problems(root):
    """BENCHMARKS.md is what run_benchmarks.py writes, whole: it ends with the line the
    generator writes last (its link to the analysis by hand, docs/performance.md), so
    notes appended by hand, which the next run would drop, fail here."""
    if not (os.path.isfile(os.path.join(root, BENCHMARKS))
            and os.path.isfile(os.path.join(root, BENCHMARK_GENERATOR))):
        return []
    generator = read(root, BENCHMARK_GENERATOR)
    last = re.search(r'out \+= \["(What these figures say: )"\s*"([^"]*)"\]', generator)
    if not last:
        return [Problem(BENCHMARK_GENERATOR, 1, "no last line of BENCHMARKS.md found "
                        "(out += [\"What these figures say: \" \"...\"])")]
    expected = last.group(1) + last.group(2)
    lines = read(root, BENCHMARKS).rstrip("\n").split("\n")
    if lines[-1] == expected:
        return []
    at = next((i + 1 for i, line in enumerate(lines) if line == expected), len(lines))
    return [Problem(BENCHMARKS, at, f"{BENCHMARKS} goes on past the generator's last line "
                    f"('{expected}'): notes by hand belong in docs/performance.md"
                    if at < len(lines) else
                    f"{BENCHMARKS} does not end with the generator's last line ('{expected}')")]


def check_against_server(tree, server):
    """(problems, docs) with the names of the running `server`: the metrics of its scrape
    (and of a server on a shared Redis store), its routes, its answers to the refusals the
    docs quote. A run that sent no quoted refusal checked nothing of them: a problem."""
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".prom", delete=False) as scrape:
        scrape.write(server.drive_and_scrape())
        from shared_store_scrape import scrape_store_server  # its own server, on Redis
        scrape.write(scrape_store_server(server.binary, tree.root))
    try:
        tree.names = Names(tree, scrape.name)
    finally:
        os.unlink(scrape.name)
    tree.names.metrics_from = "the metrics of the driven server's scrape"
    tree.names.use_server(server)
    docs = doc_files(tree.root, tree.files)
    problems = [p for doc in docs for p in check_doc(tree, doc)] + benchmarks_problems(tree.root)
    if not server.messages_checked:
        problems.append(Problem(docs[0] if docs else "README.md", 0,
                                "no quoted error message was sent to the server (none of "
                                "LIVE_MESSAGES matched): their check proved nothing"))
    return problems, docs


def table_rows(text):
    """(line number, section heading, cells) of each table row of a Markdown page that is
    not a header's |---| line."""
    section, rows = None, []
    for number, kind, line in markdown_parts(text):
        if kind == "prose" and re.match(r"^#{1,6}\s", line):
            section = re.sub(r"^#+\s+", "", line).strip()
        elif kind == "prose" and line.startswith("|") and not re.fullmatch(r"\|[-:| ]+\|\s*", line):
            rows.append((number, section, [c.strip() for c in line.strip().strip("|").split("|")]))
    return rows


def section_slug(title):
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def copied_benchmark_problems(root, doc):
    """BENCHMARKS.md is regenerated whole; its figures are cited by a link to their section
    (BENCHMARKS.md#...), never copied: a table row of `doc` that restates a row of one of
    its tables (the same label in the first cell: a benchmark, a stage, a target; not a
    bare number or one word) is a copy that goes stale at the next run."""
    if doc == BENCHMARKS or not os.path.isfile(os.path.join(root, BENCHMARKS)):
        return []
    held = {}
    for _, section, cells in table_rows(read(root, BENCHMARKS)):
        label = cells[0].strip("`* ")
        if re.search(r"[A-Za-z]", label) and (len(label.split()) > 1 or re.search(r"[/:_]", label)):
            held.setdefault(label, section)
    link = os.path.relpath(BENCHMARKS, os.path.dirname(doc) or ".")
    found = []
    for number, _, cells in table_rows(read(root, doc)):
        # A label's own note "(Informer)" aside: the same benchmark.
        section = held.get(re.sub(r"\s*\([^()]*\)$", "", cells[0].strip("`* ")))
        if section and len(cells) > 1:
            found.append(Problem(doc, number, f"copies the row '{cells[0]}' of {BENCHMARKS} "
                                 f"(section '{section}'): link {link}#{section_slug(section)} "
                                 "instead of copying its figures"))
    return found


def default_root():
    return os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=default_root())
    parser.add_argument("--build-dir", help="a build folder: build/... paths may exist there")
    parser.add_argument("--check", action="store_true", help="exit 1 on any problem")
    parser.add_argument("--metrics", help="a /metrics scrape: the metric names that exist "
                        "(default: the tsserve_* literals of server/)")
    parser.add_argument("--server", help="a tsserve binary: start it, drive it through "
                        "forecasts with intervals, ReportActuals and Observe, and take the "
                        "metric names from its /metrics (instead of --metrics), the routes "
                        "from its router, and send it the refusals the docs quote")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    build_dir = args.build_dir and os.path.abspath(os.path.join(root, args.build_dir))
    tree = Tree(root, build_dir)
    if args.server:
        client = build_dir and os.path.join(build_dir, "client", "tsserve-client")
        client = client if client and os.access(client, os.X_OK) else None
        with DrivenServer(os.path.abspath(args.server), root, client) as server:
            problems, docs = check_against_server(tree, server)
    else:
        tree.names = Names(tree, args.metrics and os.path.abspath(args.metrics))
        docs = doc_files(root, tree.files)
        problems = [p for doc in docs for p in check_doc(tree, doc)] + benchmarks_problems(root)
    for problem in problems:
        print(f"{problem.path}:{problem.line}: {problem.message}")
    noun = "problem" if len(problems) == 1 else "problems"
    print(f"{len(problems)} {noun} in {len(docs)} Markdown files")
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
