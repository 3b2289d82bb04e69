# shellcheck shell=bash
# A new Debian 12 root to try benchwatch where nothing was installed by hand: what
# scripts/check-package (installs the .deb) and scripts/check-demo (runs scripts/demo from a
# clean clone) share. Source it after lib.sh; it defines functions and variables only.
#
# The base root (mmdebstrap, variant apt: Debian's essential packages and apt, nothing else) is
# made once a day into NEW_ROOT_CACHE as a tarball with its package lists, and every check
# extracts a fresh copy of it. The .debs apt downloads in a root are kept in NEW_ROOT_CACHE/archives
# and offered to the next root, so that a rerun downloads only what changed. The cache lives
# outside the work tree (BENCHWATCH_ROOT_CACHE overrides it), so that CI's clean clones share it.

NEW_ROOT_SUITE=bookworm
NEW_ROOT_CACHE="${BENCHWATCH_ROOT_CACHE:-/var/cache/benchwatch/new-root}"
# The root being used, and what is mounted in it; new_root_remove undoes them.
NEW_ROOT=""
NEW_ROOT_PROC_MOUNTED=0
NEW_ROOT_TMPFS_MOUNTED=0

# The Debian mirror apt uses here (the first http(s) source of the suite that is not the
# security archive), else deb.debian.org; BENCHWATCH_DEBIAN_MIRROR overrides it.
debian_mirror() {
    if [[ -n "${BENCHWATCH_DEBIAN_MIRROR:-}" ]]; then
        echo "$BENCHWATCH_DEBIAN_MIRROR"
        return
    fi
    local found
    # One-line sources ("deb [options] URL SUITE COMPONENT...") and deb822 ones (URIs:, Suites:).
    found="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
        /etc/apt/sources.list.d/*.sources 2>/dev/null | awk -v suite="$NEW_ROOT_SUITE" '
            /^[[:space:]]*#/ { next }
            $1 == "deb" {
                for (i = 2; i < NF; ++i)
                    if ($i ~ /^https?:/ && $(i + 1) == suite) { print $i; exit }
            }
            $1 == "URIs:" { uri = $2 }
            $1 == "Suites:" {
                for (i = 2; i <= NF; ++i)
                    if ($i == suite && uri !~ /security/) { print uri; exit }
            }')"
    echo "${found:-http://deb.debian.org/debian}"
}

# Prints in one line why this machine cannot make a new root, or nothing when it can.
new_root_cannot_run_reason() {
    if ((EUID != 0)); then
        echo "not root: making a Debian root and working in it needs root"
        return
    fi
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "not a Debian system: mmdebstrap comes from Debian's packages"
        return
    fi
    local probe
    probe="$(mktemp -d)"
    if ! mount -t proc proc "$probe" 2>/dev/null; then
        rmdir -- "$probe"
        echo "cannot mount /proc for a chroot here (an unprivileged container?)"
        return
    fi
    umount "$probe" && rmdir -- "$probe"
    local mirror host port
    mirror="$(debian_mirror)"
    host="${mirror#*://}"
    host="${host%%/*}"
    port=80
    [[ "$mirror" == https:* ]] && port=443
    if [[ "$host" == *:* ]]; then port="${host##*:}"; host="${host%:*}"; fi
    # shellcheck disable=SC2016  # expanded by the inner bash, from its arguments
    if ! timeout 10 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null; then
        echo "the Debian mirror $mirror cannot be reached"
        return
    fi
    if ! command -v mmdebstrap >/dev/null 2>&1 &&
        ! (ensure_packages "${BENCHWATCH_NEW_ROOT_DEPENDENCIES[@]}" >/dev/null 2>&1); then
        echo "mmdebstrap is not installed and apt-get could not install it"
        return
    fi
}

# Prints the path of today's base root tarball, making it first when missing (older ones are
# removed).
new_root_base() {
    mkdir -p "$NEW_ROOT_CACHE/archives"
    local base
    base="$NEW_ROOT_CACHE/$NEW_ROOT_SUITE-apt-$(date -u +%F).tar"
    if [[ ! -f "$base" ]]; then
        local mirror start
        mirror="$(debian_mirror)"
        echo "making the base Debian $NEW_ROOT_SUITE root from $mirror (cached in $base)" >&2
        start="$EPOCHREALTIME"
        rm -f -- "$NEW_ROOT_CACHE"/"$NEW_ROOT_SUITE"-apt-*.tar
        # The name's .tar tells mmdebstrap the format.
        mmdebstrap --quiet --variant=apt --skip=cleanup/apt/lists "$NEW_ROOT_SUITE" \
            "$NEW_ROOT_CACHE/partial.tar" "$mirror" >&2
        mv -- "$NEW_ROOT_CACHE/partial.tar" "$base"
        echo "base root made in $(elapsed_since "$start")" >&2
    fi
    echo "$base"
}

# Makes a new root in NEW_ROOT from the base tarball: in a tmpfs of SIZE (e.g. 2G) when one can
# be mounted, since dpkg's syncs and removing the root's files cost tens of seconds on a busy disk
# and nothing checked depends on the file system. It gets this machine's network settings (its
# resolver, and the extra certificate authorities that Node.js is told to trust, as on a machine
# behind the same proxy), /proc, and the cached .debs. Call new_root_remove on every exit.
new_root_make() {
    local size="$1" base
    base="$(new_root_base)"
    ensure_packages "${BENCHWATCH_NEW_ROOT_DEPENDENCIES[@]}" >/dev/null
    NEW_ROOT="$(mktemp -d "${TMPDIR:-/tmp}/benchwatch-new-root.XXXXXX")"
    if mount -t tmpfs -o "size=$size,mode=755" benchwatch-new-root "$NEW_ROOT" 2>/dev/null; then
        NEW_ROOT_TMPFS_MOUNTED=1
    fi
    tar -C "$NEW_ROOT" -xf "$base"
    cp -- /etc/resolv.conf "$NEW_ROOT/etc/resolv.conf" 2>/dev/null || true
    if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
        cp -- "$NODE_EXTRA_CA_CERTS" "$NEW_ROOT/etc/benchwatch-host-extra-ca.crt"
    fi
    # git's and apt's child processes read /proc (/proc/self/fd for /dev/fd).
    mount -t proc proc "$NEW_ROOT/proc"
    NEW_ROOT_PROC_MOUNTED=1
    local cached_debs=()
    shopt -s nullglob
    cached_debs=("$NEW_ROOT_CACHE"/archives/*.deb)
    shopt -u nullglob
    ((${#cached_debs[@]} == 0)) || cp -- "${cached_debs[@]}" "$NEW_ROOT/var/cache/apt/archives/"
}

# Runs COMMAND... as root inside NEW_ROOT with a clean environment (no variable of this machine's
# shell or CI gets in), apart from the extra certificate authorities new_root_make copied.
in_new_root() {
    local extra_ca=()
    [[ -f "$NEW_ROOT/etc/benchwatch-host-extra-ca.crt" ]] &&
        extra_ca=(NODE_EXTRA_CA_CERTS=/etc/benchwatch-host-extra-ca.crt)
    chroot "$NEW_ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "${extra_ca[@]}" "$@"
}

# Keeps the .debs apt downloaded in NEW_ROOT for the next root (never benchwatch's own).
new_root_keep_downloads() {
    cp -n -- "$NEW_ROOT"/var/cache/apt/archives/*.deb "$NEW_ROOT_CACHE/archives/" 2>/dev/null || true
    rm -f -- "$NEW_ROOT_CACHE"/archives/benchwatch_*.deb
}

# Unmounts NEW_ROOT's /proc and its tmpfs and removes it; does nothing when there is none.
new_root_remove() {
    if ((NEW_ROOT_PROC_MOUNTED)); then
        umount "$NEW_ROOT/proc" || umount -l "$NEW_ROOT/proc" || true
    fi
    if ((NEW_ROOT_TMPFS_MOUNTED)); then umount "$NEW_ROOT" || umount -l "$NEW_ROOT" || true; fi
    if [[ -n "$NEW_ROOT" && -d "$NEW_ROOT" ]]; then rm -rf --one-file-system -- "$NEW_ROOT"; fi
    NEW_ROOT=""
    NEW_ROOT_PROC_MOUNTED=0
    NEW_ROOT_TMPFS_MOUNTED=0
}
