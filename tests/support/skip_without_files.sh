#!/bin/sh
# Runs COMMAND when every FILE exists; otherwise exits 77 naming the first missing one.
# The tests that need the dataset beside the project (../shared/data, or TSSERVE_DATA_DIR)
# run through it with SKIP_RETURN_CODE 77, so without the dataset CTest lists them as
# skipped, by name, rather than not registering them or failing them.
#
#   skip_without_files.sh FILE... -- COMMAND [ARG...]
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  if [ ! -e "$1" ]; then
    echo "skipped: $1 is missing (the dataset beside the project; see TSSERVE_DATA_DIR)"
    exit 77
  fi
  shift
done
if [ "$1" != "--" ] || [ $# -lt 2 ]; then
  echo "usage: $0 FILE... -- COMMAND [ARG...]" >&2
  exit 2
fi
shift
exec "$@"
