#!/usr/bin/env bash
# Makes a debootstrap --variant=minbase root into what Docker's official
# debian:bookworm-slim is (debuerreotype's --slimify): documentation but the copyright
# files, manual pages, info pages and translations removed, dpkg told to keep them out of
# later installs, and apt's downloaded packages and lists removed. The image test imports
# the result as debian:bookworm-slim, so its size bound holds for the real base.
#   tests/deploy/slimify_rootfs.sh ROOTFS
set -euo pipefail
rootfs=$1
[ -x "$rootfs/usr/bin/dpkg" ] || { echo "$rootfs is not a Debian root file system" >&2; exit 1; }
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
CFG
find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs"/usr/share/groff/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/linda/* \
  "$rootfs"/usr/share/lintian/* "$rootfs"/usr/share/locale/* "$rootfs"/usr/share/man/* \
  "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
