#!/usr/bin/env bash
# CTest static_plain_mutex: no plain standard mutex or lock in server/ outside server/sync/.
# Clang's thread-safety analysis (static_clang_tidy) sees only tsserve::Mutex and
# tsserve::MutexLock (server/sync/mutex.h): a member guarded by a std::mutex is checked by
# nothing, so std::mutex (and its recursive/shared/timed kinds), std::lock_guard,
# std::scoped_lock, std::shared_lock and std::unique_lock are refused, each reported as
# FILE:LINE. Allowed: a std::unique_lock<std::mutex>& parameter (what MutexLock::native()
# hands a condition variable's wait, e.g. Clock::wait_until), and any of them in a //
# comment.
#
#   tests/static/plain_mutex_check.sh SOURCE_DIR
# Exit 0: none; 3: found some (listed); anything else: the check itself failed.
# static_plain_mutex_selftest plants each kind in a small tree and expects exit 3 naming it.
set -euo pipefail
root=$(cd "$1" && pwd)
cd "$root"
if [ ! -d server ]; then
  echo "static_plain_mutex: no server/ folder in $root" >&2
  exit 1
fi
mapfile -t files < <(find server -path server/sync -prune -o -type f \
                       \( -name '*.h' -o -name '*.cpp' \) -print | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "static_plain_mutex: no .h/.cpp under $root/server" >&2
  exit 1
fi
found=$(perl -ne '
  my $line = $_;
  $line =~ s{//.*}{};
  $line =~ s{std::unique_lock\s*<\s*std::mutex\s*>\s*&}{}g;
  if ($line =~ /std::(?:(?:recursive_|shared_|timed_|recursive_timed_|shared_timed_)?mutex\b|lock_guard\b|scoped_lock\b|shared_lock\b|unique_lock\b)/) {
    chomp; print "$ARGV:$.: $_\n";
  }
  close ARGV if eof;
' "${files[@]}")
if [ -n "$found" ]; then
  echo "$found"
  echo "static_plain_mutex: $(wc -l <<<"$found") plain standard mutexes or locks in server/:" \
       "use tsserve::Mutex, tsserve::MutexLock and TSSERVE_GUARDED_BY (server/sync/mutex.h)," \
       "which the thread-safety analysis checks" >&2
  exit 3
fi
echo "static_plain_mutex: no plain standard mutex or lock in ${#files[@]} files of server/" \
     "(outside server/sync/)"
