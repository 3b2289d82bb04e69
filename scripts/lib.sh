# shellcheck shell=bash
# Helpers shared by the project's scripts (scripts/demo, scripts/test). Source it; it defines
# functions and variables only and changes no state of the caller's shell options.

# The repository root: the parent of the folder holding this file, symlinks resolved.
BENCHWATCH_ROOT="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian 12 packages needed to build benchwatch, its tests and the examples.
# shellcheck disable=SC2034  # used by the scripts that source this file
BENCHWATCH_BUILD_DEPENDENCIES=(
    build-essential g++ cmake ninja-build git pkg-config
    libbenchmark-dev libgtest-dev libfmt-dev libsimdjson-dev nlohmann-json3-dev
    libcli11-dev libtomlplusplus-dev libsqlite3-dev libpugixml-dev libcpp-httplib-dev libpq-dev
    libboost-dev zlib1g-dev
)

# Debian 12 packages the tests need beyond the build: the dashboard's browser test drives Chromium,
# the test of the docs' workflows reads their YAML with yaml-cpp, the store tests start a
# private PostgreSQL server, the Go trial benchmarks a Go module with `go test -bench`, the
# instrument's tests count instructions under valgrind, and the two-file and import tests run a
# pytest-benchmark suite.
# shellcheck disable=SC2034  # used by the scripts that source this file
BENCHWATCH_TEST_DEPENDENCIES=(chromium libyaml-cpp-dev postgresql golang-go valgrind catch2
    python3-pytest-benchmark)

# Debian 12 packages that make and check the Debian package (scripts/package, scripts/test):
# help2man writes the man page, dpkg-dev has dpkg-shlibdeps (Depends), file lets CPack find the
# binaries to strip and scan.
# shellcheck disable=SC2034  # used by the scripts that source this file
BENCHWATCH_PACKAGE_DEPENDENCIES=(help2man dpkg-dev file)

# Debian 12 packages that make a new Debian root (scripts/new-root.sh).
# shellcheck disable=SC2034  # used by the scripts that source this file
BENCHWATCH_NEW_ROOT_DEPENDENCIES=(mmdebstrap)

# Debian 12 packages of the fuzz build beyond the normal build (scripts/fuzz): clang's libFuzzer.
# shellcheck disable=SC2034  # used by the scripts that source this file
BENCHWATCH_FUZZ_DEPENDENCIES=(clang-14 libclang-rt-14-dev)

# Parallel compile jobs: BENCHWATCH_JOBS when set, otherwise the number of processors.
BENCHWATCH_JOBS="${BENCHWATCH_JOBS:-$(nproc 2>/dev/null || echo 2)}"

# Prints "error: MESSAGE" to standard error and exits with status 1.
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# Prints the seconds elapsed since START (an $EPOCHREALTIME value) with one decimal, e.g. "12.3 s".
elapsed_since() {
    local start_us now_us
    start_us="${1/./}"
    now_us="${EPOCHREALTIME/./}"
    local tenths=$(((10#$now_us - 10#$start_us) / 100000))
    printf '%d.%d s' $((tenths / 10)) $((tenths % 10))
}

# Runs COMMAND... as one step of a script: prints LABEL, hides the command's output in a log,
# then prints how long it took. On failure prints the log's last 40 lines and returns the
# command's status. COMMAND runs in a subshell with errexit on, so a shell function stops at
# its first failing command (bash ignores errexit under `if`, `||` and `&&`: call step as a plain
# statement), and variables it sets do not reach the caller. The log goes to BENCHWATCH_STEP_LOG
# when set, otherwise a temporary file.
step() {
    local label="$1"
    shift
    local log="${BENCHWATCH_STEP_LOG:-}" owns_log=0
    if [[ -z "$log" ]]; then
        log="$(mktemp)"
        owns_log=1
    fi
    local start="$EPOCHREALTIME" status=0
    printf '  %-60s ' "$label"
    local errexit_was_on=0
    [[ $- == *e* ]] && errexit_was_on=1
    set +e
    (
        set -e
        "$@"
    ) >"$log" 2>&1
    status=$?
    ((errexit_was_on)) && set -e
    if ((status == 0)); then
        printf '%8s\n' "$(elapsed_since "$start")"
    else
        printf 'failed (exit %d)\n' "$status"
        tail -n 40 "$log" | sed 's/^/    | /' >&2
    fi
    if ((owns_log)); then rm -f "$log"; fi
    return "$status"
}

# Installs the Debian packages among PACKAGE... that are not installed yet, running
# `apt-get update` once per script, through sudo when not root. Without dpkg (not Debian) it
# prints which packages it expects and returns 0: the build then says what is missing.
ensure_packages() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        printf 'warning: not a Debian system; make sure these are installed: %s\n' "$*" >&2
        return 0
    fi
    local missing=() package
    for package in "$@"; do
        if [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null)" != ii* ]]; then
            missing+=("$package")
        fi
    done
    ((${#missing[@]} == 0)) && return 0

    local as_root=()
    if ((EUID != 0)); then
        command -v sudo >/dev/null 2>&1 ||
            die "missing packages ${missing[*]}; run as root or install sudo"
        as_root=(sudo)
    fi
    echo "installing ${missing[*]}"
    if [[ -z "${BENCHWATCH_APT_UPDATED:-}" ]]; then
        "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
        BENCHWATCH_APT_UPDATED=1
    fi
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Node.js and npm, which build the dashboard's page: Debian's packages, unless both commands
# exist already (NodeSource's nodejs package, for one, brings npm and conflicts with Debian's).
# Debian's Node.js checks TLS certificates against the system's store, which only the
# ca-certificates package (a recommendation of nodejs that --no-install-recommends leaves out)
# fills: without it npm cannot reach its registry.
ensure_node() {
    if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then return 0; fi
    ensure_packages nodejs npm ca-certificates
}

# Configures SOURCE_DIR into BUILD_DIR with CMake and Ninja, passing CMAKE_ARG..., then builds
# TARGET... (everything when none) with BENCHWATCH_JOBS jobs. Reconfiguring an existing build
# directory only updates the cache. Example:
#   cmake_build "$BENCHWATCH_ROOT" build/release -DCMAKE_BUILD_TYPE=Release -- benchwatch
cmake_build() {
    local source_dir="$1" build_dir="$2"
    shift 2
    local cmake_args=() targets=()
    while (($# > 0)) && [[ "$1" != "--" ]]; do
        cmake_args+=("$1")
        shift
    done
    if (($# > 0)); then
        shift
        targets=("$@")
    fi
    cmake -S "$source_dir" -B "$build_dir" -G Ninja "${cmake_args[@]}"
    local target_args=()
    if ((${#targets[@]} > 0)); then target_args=(--target "${targets[@]}"); fi
    cmake --build "$build_dir" --parallel "$BENCHWATCH_JOBS" "${target_args[@]}"
}

# Builds benchwatch itself into BUILD_DIR (relative paths are under the repository root) with
# BUILD_TYPE and CMAKE_ARG..., then TARGET... after "--" (everything when none).
build_benchwatch() {
    local build_dir="$1" build_type="$2"
    shift 2
    [[ "$build_dir" == /* ]] || build_dir="$BENCHWATCH_ROOT/$build_dir"
    cmake_build "$BENCHWATCH_ROOT" "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" "$@"
}

# The real benchmark histories in shared/data beside the repository, for the tests that use them:
# beside this work tree, else beside the repository this one was cloned from (a clean clone in a
# temporary folder); prints nothing when neither has them, and those tests then skip.
find_shared_data() {
    local candidate origin
    candidate="$BENCHWATCH_ROOT/../shared/data"
    if [[ -d "$candidate" ]]; then (cd "$candidate" && pwd); return; fi
    origin="$(git -C "$BENCHWATCH_ROOT" config --get remote.origin.url 2>/dev/null || true)"
    if [[ -n "$origin" && -d "$origin/../shared/data" ]]; then (cd "$origin/../shared/data" && pwd); fi
}
