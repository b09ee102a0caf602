#include "tsserve/client/key_routing.h"

namespace tsserve::client {
namespace {

constexpr unsigned long long kFnvOffset = 14695981039346656037ull;
constexpr unsigned long long kFnvPrime = 1099511628211ull;

unsigned long long fnv1a(unsigned long long hash, const std::string& bytes) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

}  // namespace

unsigned long long rendezvous_score(const std::string& key, const std::string& target) {
  unsigned long long hash = fnv1a(kFnvOffset, key);
  hash = fnv1a(hash, std::string(1, '\0'));
  hash = fnv1a(hash, target);
  // FNV-1a's last bytes barely reach the high bits: a final mix (MurmurHash3's fmix64)
  // spreads every input bit over the score before scores are compared.
  hash ^= hash >> 33;
  hash *= 0xff51afd7ed558ccdull;
  hash ^= hash >> 33;
  hash *= 0xc4ceb9fe1a85ec53ull;
  hash ^= hash >> 33;
  return hash;
}

const std::string& target_for_key(const std::string& key, const std::vector<std::string>& targets) {
  const std::string* best = &targets.front();
  unsigned long long best_score = rendezvous_score(key, *best);
  for (const std::string& target : targets) {
    const unsigned long long score = rendezvous_score(key, target);
    // Ties (never seen in practice) go to the smaller name, so the list's order never matters.
    if (score > best_score || (score == best_score && target < *best)) {
      best = &target;
      best_score = score;
    }
  }
  return *best;
}

}  // namespace tsserve::client
