#!/usr/bin/env bash
# Copies into STAGE_DIR exactly the shared libraries that BINARY... load, less those the
# runtime base image already has, so the image's runtime stage can be a slim base plus
# STAGE_DIR instead of the packages (Debian's LibTorch package alone pulls in OpenCV, FFmpeg,
# Qt, Mesa and LLVM, of which the binaries load only part).
#
#   deploy/stage-runtime-libs.sh STAGE_DIR BASE_ROOT BINARY...
#
# BASE_ROOT is the runtime base image's file system (the Dockerfile copies it in): a
# library whose path exists there is left to the base, so the C library and the loader
# stay the base's own.
#
# Resolution is the dynamic loader's own: ldd runs ld.so in trace mode, which walks
# DT_NEEDED transitively through ld.so.cache, RUNPATH and the symlinks exactly as a real
# start does. That matters for libblas.so.3 and liblapack.so.3: Debian selects OpenBLAS or
# the reference BLAS with update-alternatives (/usr/lib/.../libblas.so.3 ->
# /etc/alternatives/... -> openblas-pthread/libblas.so.3). Each library is copied to its
# real path and the name the loader found it by becomes a direct relative symlink to it,
# so the image carries the alternative that was selected here and needs no alternatives
# database. A library ldd cannot find fails the script.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 STAGE_DIR BASE_ROOT BINARY..." >&2; exit 2; }
stage=$1 base=$2
shift 2
[ -d "$base/usr/lib" ] || { echo "BASE_ROOT $base has no usr/lib: not a root file system" >&2; exit 2; }

found_paths() {
  local bin listing
  for bin in "$@"; do
    listing=$(ldd "$bin") || { echo "ldd $bin failed: not a dynamic executable?" >&2; return 1; }
    if grep -q 'not found' <<<"$listing"; then
      grep 'not found' <<<"$listing" >&2
      echo "$bin: the libraries above are missing in the build stage" >&2
      return 1
    fi
    # "libx.so.1 => /path/libx.so.1 (0x...)", and the loader as "/lib64/ld-linux... (0x...)";
    # linux-vdso.so.1 is the kernel's and has no path.
    awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' <<<"$listing"
  done
}

paths=$(found_paths "$@")
copied=0 from_base=0
while read -r found; do
  # The directory canonical (merged /usr: /lib is a symlink to usr/lib), the name kept:
  # the name is the soname or alternative the loader looks up.
  name=$(readlink -f "$(dirname "$found")")/$(basename "$found")
  if [ -e "$base$name" ] || [ -L "$base$name" ]; then
    from_base=$((from_base + 1))
    continue
  fi
  real=$(readlink -f "$found")
  mkdir -p "$stage$(dirname "$real")"
  cp -p "$real" "$stage$real"
  if [ "$name" != "$real" ]; then
    mkdir -p "$stage$(dirname "$name")"
    ln -sfr "$stage$real" "$stage$name"
  fi
  copied=$((copied + 1))
done <<<"$(sort -u <<<"$paths")"

echo "staged $copied libraries ($(du -sh "$stage" | cut -f1)) for $*; $from_base left to the base image"
